// Judges RES-INTEGER-FORM: a whole number written `10.0` or `1e1` is an integer to JSON Schema, so the contract holds;
// typed clients (Go's encoding/json, serde) refuse to decode it into one: a SHOULD.
import { hasValueAtTokens, pointerTokens } from '../resolve.ts';
import { wholeNumbersWithFraction } from '../json-text.ts';
import { schemaMembers } from '../members.ts';
import { responseDocument } from '../validate.ts';
import { type ExchangeCheck, parsedResponse } from './exchange.ts';

/** The members a response schema types `integer`: their pointers (array indices written 0) and each one's tokens. */
interface IntegerMembers {
  pointers: ReadonlySet<string>;
  tokens: readonly (readonly string[])[];
}

const integerMembersOf = new WeakMap<object, IntegerMembers>();

/** The members a response schema types `integer`; built once per schema. */
function integerMembers(schema: Record<string, unknown>): IntegerMembers {
  let members = integerMembersOf.get(schema);
  if (!members) {
    const pointers = new Set(
      schemaMembers(schema)
        .filter((m) => m.integer)
        .map((m) => m.pointer),
    );
    integerMembersOf.set(schema, (members = { pointers, tokens: [...pointers].map(pointerTokens) }));
  }
  return members;
}

const NO_INTEGER_MEMBERS: IntegerMembers = { pointers: new Set(), tokens: [] };

export const integerForm: ExchangeCheck = {
  name: 'integerForm',
  appliesTo: (x) => x.operation !== null && parsedResponse(x.response) !== undefined,
  run(contract, x, _options, verdict) {
    const document = responseDocument(contract, x.operation, x.response.status);
    const { pointers, tokens } = document ? integerMembers(document.schema) : NO_INTEGER_MEMBERS;
    // A document with no integer member cannot judge the requirement: no verdict, so it is not passed for this
    // exchange.
    if (pointers.size === 0) return [];
    const written = wholeNumbersWithFraction(x.response.bodyText!, pointers);
    // Held only where an integer member was written (and none with a fraction); otherwise nothing was judged.
    const value = parsedResponse(x.response)!.value;
    if (written.length === 0 && tokens.some((memberTokens) => hasValueAtTokens(value, memberTokens)))
      verdict.held('RES-INTEGER-FORM', 'response');
    return written.map(({ pointer, literal }) =>
      contract.finding('RES-INTEGER-FORM', 'response', {
        pointer,
        message: `${pointer} is the integer ${Number(literal)} written ${literal.slice(0, 40)}: typed clients refuse to decode it into an integer`,
        expected: String(Number(literal)),
        actual: literal.slice(0, 40),
      }),
    );
  },
};
