// Runs in the judging thread: answers each batch of exchanges with their findings, in order.
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { loadContract } from '../contract/index.ts';
import { judgeExchange, type ExchangeEvidence } from './judge.ts';
import { evidenceFromRing, type JudgeBatch, type JudgedExchange, type JudgeWorkerData } from './judge-thread.ts';

const contract = loadContract();
const { judge: options, bodies } = workerData as JudgeWorkerData;

function judgeOne(evidence: ExchangeEvidence): JudgedExchange {
  const started = performance.now();
  try {
    const findings = judgeExchange(contract, evidence, options);
    return { findings, seconds: (performance.now() - started) / 1000 };
  } catch (error) {
    return { findings: [], seconds: (performance.now() - started) / 1000, error: (error as Error).message };
  }
}

parentPort!.on('message', (batch: JudgeBatch) => parentPort!.postMessage(batch.evidence.map((posted) => judgeOne(evidenceFromRing(posted, bodies)))));
