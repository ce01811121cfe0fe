// MongoDB ObjectIds (section 2.1): 4 bytes of seconds, 5 bytes fixed per generator, 3 bytes of
// counter, written as 24 lowercase hex digits.
import { randomBytes } from 'node:crypto';

export type ObjectIdGenerator = () => string;

function hex(value: number, digits: number): string {
  return value.toString(16).padStart(digits, '0').slice(-digits);
}

/** A generator whose ids are fixed by `seconds` and `machine` (10 hex digits) and its call count. */
export function objectIdSequence(seconds: number, machine: string): ObjectIdGenerator {
  let counter = 0;
  return () => hex(seconds, 8) + machine + hex(counter++, 6);
}

/** A generator of fresh ids for created resources. */
export function freshObjectIds(): ObjectIdGenerator {
  const machine = randomBytes(5).toString('hex');
  let counter = randomBytes(3).readUIntBE(0, 3);
  return () => hex(Math.floor(Date.now() / 1000), 8) + machine + hex(counter++, 6);
}
