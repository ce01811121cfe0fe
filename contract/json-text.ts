// What the text of a JSON body says beyond the value JSON.parse returns, where parsers and clients
// read the same bytes differently: bytes that are not UTF-8 (RFC 8259 section 8.1), a member name
// given twice in one object (section 4: which one a parser keeps varies), and a number written
// with a fraction or exponent where an integer is due (JSON Schema reads 1.0 as an integer, typed
// clients refuse it). Each reading has a cheap test first, so that a body that has none of them
// costs little more than its parse.
import { isUtf8 } from 'node:buffer';
import { escapeToken } from './resolve.ts';

/** How a body's bytes read as UTF-8: all of them, or from which byte offset not. */
export type Utf8Reading = 'valid' | { invalidAt: number };

/**
 * A body read as bytes: its text (each byte that is not UTF-8 a U+FFFD, as every client decodes it) and whether the
 * bytes were UTF-8.
 */
export function utf8Text(bytes: Uint8Array): { text: string; utf8: Utf8Reading } {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { text: buffer.toString('utf8'), utf8: utf8Reading(buffer) };
}

export function utf8Reading(bytes: Uint8Array): Utf8Reading {
  return isUtf8(bytes) ? 'valid' : { invalidAt: firstInvalidUtf8(bytes) };
}

/**
 * The offset of the first byte that does not begin or continue a well-formed UTF-8 sequence (RFC 3629: no overlong
 * forms, no surrogates, nothing past U+10FFFF).
 */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i];
    if (lead < 0x80) {
      i += 1;
      continue;
    }
    const length =
      lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
    if (length === 0 || i + length > bytes.length) return i;
    const second = bytes[i + 1];
    // The second byte's range narrows after E0 (no overlong), ED (no surrogate), F0 (no overlong) and F4 (nothing past
    // U+10FFFF).
    const low = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80;
    const high = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf;
    if (second < low || second > high) return i;
    for (let k = 2; k < length; k += 1) if (bytes[i + k] < 0x80 || bytes[i + k] > 0xbf) return i;
    i += length;
  }
  return bytes.length;
}

/** Member and key names JavaScript merges into an object's prototype. */
export const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** What a scan of a body's member names found, each the first such name or null. */
export interface MemberNameReading {
  /** A name repeated within one object. */
  duplicate: string | null;
  /** A name differing only by case from another of its object. */
  caseVariant: string | null;
  /** A name JavaScript merges into the prototype (PROTOTYPE_KEYS). */
  prototypeKey: string | null;
}

/** The end of the string opening at `start` (the index of its closing quote, or the text's length). */
function stringEnd(text: string, start: number): number {
  let end = start + 1;
  let escaped = false;
  while (end < text.length) {
    const d = text.charCodeAt(end);
    if (escaped) escaped = false;
    else if (d === 0x5c) escaped = true;
    else if (d === 0x22) break;
    end += 1;
  }
  return end;
}

/**
 * The member names of a JSON text that parsers and binders read differently: repeated, differing
 * only by case, or naming the prototype. A scanner over the text, with an explicit stack: no
 * recursion, whatever the nesting; one pass, whatever it finds.
 */
export function memberNameReading(text: string): MemberNameReading {
  const reading: MemberNameReading = { duplicate: null, caseVariant: null, prototypeKey: null };
  const stack: ({ names: Set<string>; folded: Set<string> } | null)[] = [];
  let expectingKey = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const end = stringEnd(text, i);
      const top = stack[stack.length - 1];
      if (expectingKey && top) {
        const raw = text.slice(i + 1, end);
        const name = raw.includes('\\') ? safeJsonString(raw) : raw;
        const folded = name.toLowerCase();
        if (top.names.has(name)) reading.duplicate ??= name;
        else if (top.folded.has(folded)) reading.caseVariant ??= name;
        if (PROTOTYPE_KEYS.has(name)) reading.prototypeKey ??= name;
        top.names.add(name);
        top.folded.add(folded);
        expectingKey = false;
      }
      i = end;
    } else if (c === 0x7b /* { */) {
      stack.push({ names: new Set(), folded: new Set() });
      expectingKey = true;
    } else if (c === 0x5b /* [ */) {
      stack.push(null);
      expectingKey = false;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
      expectingKey = false;
    } else if (c === 0x2c /* , */) {
      expectingKey = stack[stack.length - 1] !== null && stack.length > 0;
    }
  }
  return reading;
}

function safeJsonString(raw: string): string {
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}

/** A name followed by white space before its colon: the count of `":` below no longer bounds the names. */
const SPACED_COLON = /"\s+:/;

/**
 * The first member name a JSON text repeats within one object, or null. `parsed` is the text's
 * value, which holds one member of two equal names. Each member brings one colon, and two equal
 * names two: a text holding as many colons as the value has members repeats no name (and holds no
 * colon inside a string). Where strings hold colons (times, addresses), the count of `":` bounds
 * the names instead, and only a text with more runs the scanner.
 */
export function repeatedMemberName(text: string, parsed: unknown): string | null {
  const members = memberCount(parsed);
  if (colonReading(text).colons === members) return null;
  if (!SPACED_COLON.test(text) && occurrences(text, '":') === members) return null;
  return memberNameReading(text).duplicate;
}

function occurrences(text: string, part: string): number {
  let count = 0;
  for (let at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + part.length)) count += 1;
  return count;
}

/** The members of every object of a parsed value, counted without recursion. */
function memberCount(value: unknown): number {
  let count = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (next === null || typeof next !== 'object') continue;
    if (Array.isArray(next)) {
      for (const item of next) if (item !== null && typeof item === 'object') pending.push(item);
      continue;
    }
    for (const key in next) {
      count += 1;
      const member = (next as Record<string, unknown>)[key];
      if (member !== null && typeof member === 'object') pending.push(member);
    }
  }
  return count;
}

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/** A number with a fraction or exponent where a value begins (after `:`, `[` or `,`). */
const FRACTION_OR_EXPONENT = /[:[,]\s*-?\d+(?:\.\d|[eE])/;

/** One walk over a text's colons: how many, and whether a number written with a fraction or exponent follows one. */
interface ColonReading {
  colons: number;
  fractionAfterColon: boolean;
}

// The checks of one exchange read the same body text twice (member names, integer form): the last
// reading of a text up to 64 KiB is kept for it (a larger one is not held past its exchange).
const KEPT_TEXT_CHARS = 64 * 1024;
let lastColonText: string | undefined;
let lastColonReading: ColonReading | undefined;

/**
 * Each colon is found by the engine's own search; a pattern naming the members cost as much as the rest of the check.
 */
function colonReading(text: string): ColonReading {
  if (text === lastColonText && lastColonReading) return lastColonReading;
  let colons = 0;
  let fractionAfterColon = false;
  for (let at = text.indexOf(':'); at >= 0; at = text.indexOf(':', at + 1)) {
    colons += 1;
    if (fractionAfterColon) continue;
    let i = at + 1;
    while (isSpace(text.charCodeAt(i))) i += 1;
    if (text.charCodeAt(i) === 0x2d /* - */) i += 1;
    if (!isDigit(text.charCodeAt(i))) continue;
    while (isDigit(text.charCodeAt(i))) i += 1;
    const c = text.charCodeAt(i);
    fractionAfterColon = c === 0x2e /* . */ || c === 0x65 /* e */ || c === 0x45; /* E */
  }
  const reading = { colons, fractionAfterColon };
  if (text.length <= KEPT_TEXT_CHARS) [lastColonText, lastColonReading] = [text, reading];
  return reading;
}

/**
 * Whether a member's value may be a number written with a fraction or exponent: a colon followed
 * by such a number (a colon inside a string may pass too: the scanner decides). Where a pointer
 * ends in an array's item, any number after `:`, `[` or `,`.
 */
function mayHoldFraction(text: string, pointers: ReadonlySet<string>): boolean {
  if (arrayItemPointers(pointers)) return FRACTION_OR_EXPONENT.test(text);
  return colonReading(text).fractionAfterColon;
}

const withArrayItems = new WeakMap<ReadonlySet<string>, boolean>();

function arrayItemPointers(pointers: ReadonlySet<string>): boolean {
  let found = withArrayItems.get(pointers);
  if (found === undefined)
    withArrayItems.set(pointers, (found = [...pointers].some((pointer) => pointer.endsWith('/0'))));
  return found;
}

/** A number literal of the text, at the pointer of its value (array indices written 0). */
export interface NumberLiteral {
  pointer: string;
  literal: string;
}

/**
 * The numbers of a JSON text written with a fraction or exponent whose value is a whole number
 * (`10.0`, `1e1`, `0e0`), at pointers among `pointers` (array indices written 0, as schemaMembers
 * writes them). A scanner with an explicit stack, run only when `mayHoldFraction` finds one.
 */
export function wholeNumbersWithFraction(text: string, pointers: ReadonlySet<string>): NumberLiteral[] {
  if (pointers.size === 0 || !mayHoldFraction(text, pointers)) return [];
  const found: NumberLiteral[] = [];
  const stack: { array: boolean; pointer: string; key: string }[] = [];
  let expectingKey = false;
  const valuePointer = (): string => {
    const top = stack[stack.length - 1];
    if (top === undefined) return '';
    return `${top.pointer}/${top.array ? '0' : escapeToken(top.key)}`;
  };
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const end = stringEnd(text, i);
      const top = stack[stack.length - 1];
      if (expectingKey && top && !top.array) {
        const raw = text.slice(i + 1, end);
        top.key = raw.includes('\\') ? safeJsonString(raw) : raw;
        expectingKey = false;
      }
      i = end;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      stack.push({ array: c === 0x5b, pointer: valuePointer(), key: '' });
      expectingKey = c === 0x7b;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
      expectingKey = false;
    } else if (c === 0x2c /* , */) {
      expectingKey = stack.length > 0 && !stack[stack.length - 1].array;
    } else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      let end = i + 1;
      while (end < text.length && /[0-9.eE+-]/.test(text[end])) end += 1;
      const literal = text.slice(i, end);
      if (/[.eE]/.test(literal) && Number.isInteger(Number(literal))) {
        const pointer = valuePointer();
        if (pointers.has(pointer)) found.push({ pointer, literal });
      }
      i = end - 1;
    }
  }
  return found;
}
