import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';

/**
 * The OpenAPI document (`GET /api/openapi.json`), from the zod schemas the routes validate with.
 * On top of what each route declares, every operation documents the error envelope of
 * PRODUCT.md section 3 for the statuses it can answer, and a success status when the route
 * declares none (routes/openapi.test.ts checks real answers against it).
 */

/** Success statuses of routes that declare no response schema and do not answer 200. */
const SUCCESS_STATUS: Record<string, number> = {
  'POST /api/widget/visitors': 201,
  'POST /api/widget/messages': 201,
  'POST /api/vms/messages': 201,
  'POST /api/vms/register': 201,
  'POST /api/vms/team': 201,
  'POST /api/widget/offline': 201,
  'POST /api/widget/rating': 201,
  'POST /api/chatbot/message': 201,
};

const ERROR_TEXT: Record<string, string> = {
  '401': 'No token, or an unknown, expired or revoked token or API key',
  '403': 'The role, or the API key’s scopes, may not make this call',
  '404': 'Not found (also another account’s row)',
  '413': 'Too large',
  '415': 'Not an accepted file type',
  '422': 'Validation failed: `errors` holds the messages per field',
  '429': 'Rate limited: wait `Retry-After` seconds',
  '500': 'Unexpected error (never a stack trace)',
};

interface Operation {
  security?: unknown[];
  parameters?: { in: string }[];
  requestBody?: { content?: Record<string, unknown> };
  responses?: Record<string, unknown>;
}

/** Adds the error envelope and the missing success statuses to every operation of the document. */
export function completeDocument(doc: { paths?: Record<string, Record<string, Operation>>; components?: Record<string, Record<string, unknown>> }): void {
  doc.components ??= {};
  doc.components.schemas ??= {};
  doc.components.schemas.ErrorEnvelope = {
    type: 'object',
    required: ['message', 'error'],
    properties: {
      message: { type: 'string', description: 'Human text, the same as `error`' },
      error: { type: 'string' },
      errors: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } }, description: 'Validation (422): messages per field' },
    },
  };
  const envelope = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } } });
  for (const [path, ops] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(ops)) {
      op.responses ??= {};
      const responses = op.responses;
      // @fastify/swagger writes a placeholder 200 ("Default Response") for a route without response schemas.
      const placeholder = (responses['200'] as { description?: string } | undefined)?.description === 'Default Response';
      if (placeholder) delete responses['200'];
      if (!Object.keys(responses).some((s) => s.startsWith('2'))) {
        const status = SUCCESS_STATUS[`${method.toUpperCase()} ${path}`] ?? 200;
        responses[String(status)] = { description: 'Success: `{ "message": "success", "data": ... }` (see SPEC.md section 7)' };
      }
      const statuses = ['422', '429', '500'];
      if (op.security?.length) statuses.push('401', '403');
      if (path.includes('{')) statuses.push('404');
      if (op.requestBody?.content?.['multipart/form-data'] || /messages|widget-settings|chatbot|storage/.test(path)) statuses.push('413', '415');
      for (const s of statuses) responses[s] ??= envelope(ERROR_TEXT[s] ?? 'Error');
    }
  }
}

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      info: {
        title: 'Parley API',
        version: '1.0.0',
        description:
          'Live chat and visitor management. Console calls take `Authorization: Bearer <token>`: a session token from /api/vms/login, or an API key (`prly_...`) limited to its scopes. Errors are `{ message, error }` (422 adds `errors` per field).',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'A session token or an API key (prly_...)' } } },
    },
    transform: jsonSchemaTransform,
    transformObject: (documentObject) => {
      const doc = 'openapiObject' in documentObject ? documentObject.openapiObject : documentObject.swaggerObject;
      completeDocument(doc as Parameters<typeof completeDocument>[0]);
      return doc;
    },
  });
}
