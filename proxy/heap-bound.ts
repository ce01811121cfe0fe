// Judging a body allocates many times its bytes (a megabyte of `{}` items is a quarter of a million
// objects, each validated), and V8 collects that garbage lazily: twelve such bodies grew a proxy
// by hundreds of megabytes, kept long after. After judging a large body, a thread whose old heap
// retains more than its slack beyond what it kept after its last full collection collects now, so what judging leaves
// behind stays within the slack whatever the number of bodies judged.
import { getHeapSpaceStatistics, getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { forgetLargeParses } from '../contract/index.ts';

/** Growth of what a thread retains (in bodies of --max-body) it may leave uncollected. */
export const HEAP_SLACK_BODIES = 16;

const OLD_SPACES = new Set(['old_space', 'large_object_space']);

/**
 * Bytes this thread keeps that only a full collection gives back: the heap's old spaces (what
 * outlived a few collections of the young one) and the memory outside the heap its objects hold
 * (a body's buffer is freed only once the small object holding it, by then old, is collected).
 */
function retained(): number {
  let used = getHeapStatistics().external_memory;
  for (const space of getHeapSpaceStatistics()) if (OLD_SPACES.has(space.space_name)) used += space.space_used_size;
  return used;
}

let collect: (() => void) | null = null;

/** A full collection of this thread's heap (V8's gc, reached from a fresh context once exposed). */
export function collectFully(): void {
  if (collect === null) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  collect();
}

export class HeapBound {
  private afterCollection = retained();

  constructor(private readonly slackBytes: number) {}

  /** Called after judging a large body: collects once what is retained grew past the slack. */
  afterLargeBody(): void {
    // The contract keeps its last parses for the checks of one exchange: a large body's would count as retained.
    forgetLargeParses();
    if (retained() - this.afterCollection <= this.slackBytes) return;
    collectFully();
    this.afterCollection = retained();
  }
}
