// Runs in the judging thread: answers each batch of exchanges with their findings, in order.
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { loadContract } from '../contract/index.ts';
import { judgeExchange, type JudgeOptions } from './judge.ts';
import type { JudgeBatch, JudgedExchange } from './judge-thread.ts';

const contract = loadContract();
const options = workerData as JudgeOptions;

function judgeOne(evidence: JudgeBatch['evidence'][number]): JudgedExchange {
  const started = performance.now();
  try {
    const findings = judgeExchange(contract, evidence, options);
    return { findings, seconds: (performance.now() - started) / 1000 };
  } catch (error) {
    return { findings: [], seconds: (performance.now() - started) / 1000, error: (error as Error).message };
  }
}

parentPort!.on('message', (batch: JudgeBatch) => parentPort!.postMessage(batch.evidence.map(judgeOne)));
