// Option parsers shared by the subcommands: commander turns an InvalidArgumentError into
// `error: option '--x <n>' argument 'v' is invalid. <message>` and the usage exit code.
import { InvalidArgumentError } from 'commander';

/** A parser for a whole number of at least `min` (and at most `max`, when given). */
export function wholeNumber(min: number, max?: number): (value: string) => number {
  const range = max === undefined ? `of at least ${min}` : `from ${min} to ${max}`;
  return (value) => {
    const number = Number(value);
    if (!/^\d+$/.test(value.trim()) || number < min || (max !== undefined && number > max))
      throw new InvalidArgumentError(`expected a whole number ${range}.`);
    return number;
  };
}

/** Accumulates a repeatable option: pass with `[]` as its default. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
