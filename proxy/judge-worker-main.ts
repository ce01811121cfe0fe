// Runs in the judging thread: answers each batch of exchanges with their findings, in order.
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { loadContract } from '../contract/index.ts';
import { judgeExchange, type CapturedExchange } from './judge.ts';
import { capturedFromRing, type JudgeBatch, type JudgedExchange, type JudgeWorkerData } from './judge-thread.ts';

const contract = loadContract();
const { judge: options, bodies } = workerData as JudgeWorkerData;

function judgeOne(captured: CapturedExchange): JudgedExchange {
  const started = performance.now();
  const { findings, failures } = judgeExchange(contract, captured, options);
  return { findings, seconds: (performance.now() - started) / 1000, ...(failures.length > 0 ? { failures } : {}) };
}

parentPort!.on('message', (batch: JudgeBatch) => parentPort!.postMessage(batch.captured.map((posted) => judgeOne(capturedFromRing(posted, bodies)))));
