// Runs in the judging thread: answers each batch of exchanges with their findings, in order.
import { readlinkSync } from 'node:fs';
import { constants, setPriority } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { loadContract } from '../contract/index.ts';
import { HEAP_SLACK_BODIES, HeapBound } from './heap-bound.ts';
import { judgeCaptured, type CapturedExchange } from './judge.ts';
import { capturedFromRing, type JudgeBatch, type JudgedExchange, type JudgeWorkerData } from './judge-thread.ts';

/**
 * Judging yields the core to forwarding: on Linux, where a thread has a scheduling priority of its
 * own, this thread runs at the lowest. While a client keeps it busy with costly bodies and the
 * cores are all taken, conforming requests are still forwarded and answered on time; its backlog
 * is bounded and shed when full (judging.ts), so it cannot fall behind without end. Elsewhere, or
 * where lowering it is refused, it runs at the process's priority.
 */
function yieldCoreToForwarding(): void {
  try {
    const threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(threadId)) setPriority(threadId, constants.priority.PRIORITY_LOW);
  } catch {
    // Not Linux, or not permitted.
  }
}

yieldCoreToForwarding();
const contract = loadContract();
const { judge: options, bodies } = workerData as JudgeWorkerData;

function judgeOne(captured: CapturedExchange): JudgedExchange {
  const started = performance.now();
  const { findings, failures } = judgeCaptured(contract, captured, options);
  return { findings, seconds: (performance.now() - started) / 1000, ...(failures.length > 0 ? { failures } : {}) };
}

const heap = new HeapBound(HEAP_SLACK_BODIES * options.maxBody);

/**
 * Judging time (s) past which the heap is looked at right after the exchange, not only after its
 * batch: what allocates much takes long (a megabyte of small items, a decoded bomb).
 */
const HEAP_CHECK_SECONDS = 0.01;

parentPort!.on('message', (batch: JudgeBatch) => {
  parentPort!.postMessage(
    batch.captured.map((posted) => {
      const judged = judgeOne(capturedFromRing(posted, bodies));
      if (judged.seconds >= HEAP_CHECK_SECONDS) heap.afterLargeBody();
      return judged;
    }),
  );
  heap.afterLargeBody();
});
