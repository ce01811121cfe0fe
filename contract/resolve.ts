// Inlines local `$ref`s of the OpenAPI document so each compiled schema is self-contained and
// an ajv error's schemaPath and instancePath read from the operation's root. Targets are shared
// (resolved once), so the same component is the same object wherever it is used.

type Json = unknown;

export function resolvePointer(root: Json, pointer: string): Json {
  if (pointer === '' || pointer === '#') return root;
  const tokens = pointer.replace(/^#/, '').split('/').slice(1).map(unescapeToken);
  let node: Json = root;
  for (const token of tokens) {
    if (node === null || typeof node !== 'object' || !(token in (node as object))) {
      throw new Error(`unresolvable $ref ${pointer}: no member "${token}"`);
    }
    node = (node as Record<string, Json>)[token];
  }
  return node;
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

  function resolveRef(ref: string): Json {
    if (!ref.startsWith('#')) throw new Error(`only local $refs are supported, got ${ref}`);
    if (resolved.has(ref)) return resolved.get(ref);
    if (inProgress.has(ref)) throw new Error(`recursive $ref ${ref} cannot be inlined`);
    inProgress.add(ref);
    const value = walk(resolvePointer(document, ref));
    inProgress.delete(ref);
    resolved.set(ref, value);
    return value;
  }

  function walk(node: Json): Json {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== 'object') return node;
    const { $ref, ...rest } = node as Record<string, Json>;
    if (typeof $ref === 'string') {
      const target = resolveRef($ref);
      if (Object.keys(rest).length === 0) return target;
      return { ...(target as object), ...walkMembers(rest) };
    }
    return walkMembers(rest);
  }

  function walkMembers(node: Record<string, Json>): Record<string, Json> {
    const out: Record<string, Json> = {};
    for (const [key, value] of Object.entries(node)) out[key] = walk(value);
    return out;
  }

  return walk(document) as T;
}
