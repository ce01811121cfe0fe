// Inlines local `$ref`s of the OpenAPI document so each compiled schema is self-contained and
// an ajv error's schemaPath and instancePath read from the operation's root. Targets are shared
// (resolved once), so the same component is the same object wherever it is used.

type Json = unknown;

export function resolvePointer(root: Json, pointer: string): Json {
  const found = walk(root, pointer);
  if ('missing' in found) throw new Error(`unresolvable $ref ${pointer}: no member "${found.missing}"`);
  return found.value;
}

/**
 * Whether a pointer names a value of the document (without building an error for each one that does not: checks ask
 * this of every response).
 */
export function hasValueAt(document: Json, pointer: string): boolean {
  return !('missing' in walk(document, pointer));
}

/**
 * Whether the tokens of a pointer (`pointerTokens`) name a value: for one pointer asked of many documents, read once.
 */
export function hasValueAtTokens(document: Json, tokens: readonly string[]): boolean {
  return !('missing' in walkTokens(document, tokens));
}

/** A pointer's reference tokens, unescaped (`#` and the empty pointer have none). */
export function pointerTokens(pointer: string): string[] {
  if (pointer === '' || pointer === '#') return [];
  return pointer.replace(/^#/, '').split('/').slice(1).map(unescapeToken);
}

function walk(root: Json, pointer: string): { value: Json } | { missing: string } {
  return walkTokens(root, pointerTokens(pointer));
}

/** The value the tokens name, or the first token that names nothing. */
function walkTokens(root: Json, tokens: readonly string[]): { value: Json } | { missing: string } {
  let node: Json = root;
  for (const token of tokens) {
    if (node === null || typeof node !== 'object' || !(token in node)) return { missing: token };
    node = (node as Record<string, Json>)[token];
  }
  return { value: node };
}

export function unescapeToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

export function escapeToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function inlineRefs<T>(document: T): T {
  const resolved = new Map<string, Json>();
  const inProgress = new Set<string>();

  // Every node is walked once, by its pointer, so a component reached through a $ref and the
  // component itself (components.schemas.X) are the same object.
  function walkAt(pointer: string, node: Json): Json {
    if (node === null || typeof node !== 'object') return node;
    if (resolved.has(pointer)) return resolved.get(pointer);
    if (inProgress.has(pointer)) throw new Error(`recursive $ref ${pointer} cannot be inlined`);
    inProgress.add(pointer);
    const value = walk(pointer, node);
    inProgress.delete(pointer);
    resolved.set(pointer, value);
    return value;
  }

  function resolveRef(ref: string): Json {
    if (!ref.startsWith('#')) throw new Error(`only local $refs are supported, got ${ref}`);
    return walkAt(ref, resolvePointer(document, ref));
  }

  function walk(pointer: string, node: Json): Json {
    if (Array.isArray(node)) return node.map((item, index) => walkAt(`${pointer}/${index}`, item));
    const { $ref, ...rest } = node as Record<string, Json>;
    if (typeof $ref === 'string') {
      const target = resolveRef($ref);
      if (Object.keys(rest).length === 0) return target;
      return { ...(target as object), ...walkMembers(pointer, rest) };
    }
    return walkMembers(pointer, rest);
  }

  function walkMembers(pointer: string, node: Record<string, Json>): Record<string, Json> {
    const out: Record<string, Json> = {};
    for (const [key, value] of Object.entries(node)) out[key] = walkAt(`${pointer}/${escapeToken(key)}`, value);
    return out;
  }

  return walkAt('#', document) as T;
}
