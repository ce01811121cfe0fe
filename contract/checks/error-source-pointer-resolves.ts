// Judges ERR-SOURCE-POINTER: an error's source.pointer resolves in the request document.
import { hasValueAt, resolvePointer } from '../resolve.ts';
import { parsedBody } from '../validate.ts';
import { errorObjects, type ExchangeCheck, type Json } from './exchange.ts';

/** A pointer names a value of the request document, or a missing member of an object that is there. */
function pointerResolves(document: unknown, pointer: string): boolean {
  if (hasValueAt(document, pointer)) return true;
  const parent = pointer.slice(0, pointer.lastIndexOf('/'));
  if (!pointer.startsWith('/') || !hasValueAt(document, parent)) return false;
  const container = resolvePointer(document, parent);
  return container !== null && typeof container === 'object' && !Array.isArray(container);
}

export const errorSourcePointerResolves: ExchangeCheck = {
  name: 'errorSourcePointerResolves',
  appliesTo: (x) => x.response.status >= 400 && x.response.status < 500 && (x.request.bodyText ?? '') !== '',
  run(contract, x, _options, verdict) {
    const parsed = parsedBody(x.request);
    return errorObjects(x.response).flatMap((error, index) => {
      const pointer = (error.source as Json | undefined)?.pointer;
      // An error object without a pointer has nothing to resolve: it is not judged, so nothing held.
      if (typeof pointer !== 'string') return [];
      if (parsed.ok && (pointer === '' || pointerResolves(parsed.value, pointer))) {
        verdict.held('ERR-SOURCE-POINTER', 'response');
        return [];
      }
      return [
        contract.finding('ERR-SOURCE-POINTER', 'response', {
          pointer: `/errors/${index}/source/pointer`,
          message: `source.pointer "${pointer}" does not resolve in the request document`,
          expected: 'a pointer into the request document',
          actual: pointer,
        }),
      ];
    });
  },
};
