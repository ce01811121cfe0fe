// Composes the hooks of the faults that are on into one function per hook point; with no fault
// on, every point is the identity.
import type { FaultHooks } from './types.ts';

export type ComposedHooks = Required<FaultHooks>;

function chain<V, C extends unknown[]>(steps: Array<((value: V, ...context: C) => V) | undefined>): (value: V, ...context: C) => V {
  const present = steps.filter((step): step is (value: V, ...context: C) => V => step !== undefined);
  if (present.length === 0) return (value: V, ..._context: C) => value;
  return (value, ...context) => present.reduce((current, step) => step(current, ...context), value);
}

export function composeHooks(list: FaultHooks[]): ComposedHooks {
  return {
    stageOrder: chain(list.map((h) => h.stageOrder)),
    credentials: chain(list.map((h) => h.credentials)),
    findings: chain(list.map((h) => h.findings)),
    seedItem: chain(list.map((h) => h.seedItem)),
    pageWindow: chain(list.map((h) => h.pageWindow)),
    listMeta: chain(list.map((h) => h.listMeta)),
    included: chain(list.map((h) => h.included)),
    created: chain(list.map((h) => h.created)),
    reply: chain(list.map((h) => h.reply)),
  };
}
