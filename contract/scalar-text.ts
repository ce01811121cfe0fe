// One way to write a value read from a document as text, for messages and query strings.

/**
 * The text of a value read from a document: what String writes for a string, a number or a
 * boolean (and a function or symbol), JSON for an object, which String would write as
 * "[object Object]".
 */
export function scalarText(value: unknown): string {
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}
