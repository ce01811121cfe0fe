// Composes the hooks of the faults and choices that are on into one function per hook point; with
// none on, every point is the identity.
import type { ServerHooks } from './types.ts';

export type ComposedHooks = Required<ServerHooks>;

function chain<V, C extends unknown[]>(
  steps: Array<((value: V, ...context: C) => V) | undefined>,
): (value: V, ...context: C) => V {
  const present = steps.filter((step): step is (value: V, ...context: C) => V => step !== undefined);
  if (present.length === 0) return (value: V, ..._context: C) => value;
  return (value, ...context) => present.reduce((current, step) => step(current, ...context), value);
}

export function composeHooks(list: ServerHooks[]): ComposedHooks {
  return {
    stageOrder: chain(list.map((h) => h.stageOrder)),
    credentials: chain(list.map((h) => h.credentials)),
    findings: chain(list.map((h) => h.findings)),
    rejections: chain(list.map((h) => h.rejections)),
    seedItem: chain(list.map((h) => h.seedItem)),
    seedList: chain(list.map((h) => h.seedList)),
    listFilter: chain(list.map((h) => h.listFilter)),
    pageRequest: chain(list.map((h) => h.pageRequest)),
    pageWindow: chain(list.map((h) => h.pageWindow)),
    listMeta: chain(list.map((h) => h.listMeta)),
    included: chain(list.map((h) => h.included)),
    listMembers: chain(list.map((h) => h.listMembers)),
    created: chain(list.map((h) => h.created)),
    reply: chain(list.map((h) => h.reply)),
  };
}
