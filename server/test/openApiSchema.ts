/** Helpers for tests that validate answers against GET /api/openapi.json with ajv. */

/** OpenAPI 3.0's `nullable` in JSON Schema terms, for ajv. */
export function jsonSchemaOf(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(jsonSchemaOf);
  if (!node || typeof node !== 'object') return node;
  const { nullable, ...rest } = node as Record<string, unknown>;
  const out = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, jsonSchemaOf(v)]));
  if (nullable !== true) return out;
  if (typeof out.type === 'string') return { ...out, type: [out.type, 'null'], ...(out.enum ? { enum: [...(out.enum as unknown[]), null] } : {}) };
  return { anyOf: [out, { type: 'null' }] };
}
