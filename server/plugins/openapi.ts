import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import type { FastifySerializerCompiler } from 'fastify/types/schema.js';
import { jsonSchemaTransform, ResponseSerializationError } from 'fastify-type-provider-zod';
import { chatWidgetSettingsSchema, consoleMessageSchema, widgetMessageSchema, widgetSettingsSchema } from '@parley/shared';
import { z } from 'zod';
import { chatbotForm } from '../routes/chatbot/chatbot.js';

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

const file = (description: string) => ({ type: 'string', format: 'binary', description });
const chatFiles = {
  image: file('An image (JPEG, PNG, GIF or WebP), shown inline'),
  file: file('A document (PDF, text, office formats ...), downloaded by the reader'),
};
/**
 * Routes that read a multipart form (plugins/uploads.ts readForm; a JSON body of the same text
 * fields is accepted too): their text fields from the zod schema the route validates them with,
 * and their file fields.
 */
const MULTIPART: Record<string, { fields: z.ZodType; files: Record<string, object> }> = {
  'POST /api/vms/messages': { fields: consoleMessageSchema, files: chatFiles },
  'POST /api/widget/messages': { fields: widgetMessageSchema, files: chatFiles },
  'POST /api/chatbot/message': { fields: chatbotForm, files: { image: chatFiles.image } },
  'POST /api/vms/widget-settings': { fields: widgetSettingsSchema, files: { avatar: file('The widget avatar image') } },
  'POST /api/vms/chatwidget-settings': { fields: chatWidgetSettingsSchema, files: { avatar: file('The widget avatar image') } },
};

function multipartBody(form: { fields: z.ZodType; files: Record<string, object> }): object {
  const fields = z.toJSONSchema(form.fields, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, object>; required?: string[] };
  const schema = { type: 'object', properties: { ...fields.properties, ...form.files }, required: fields.required ?? [] };
  return { required: true, content: { 'multipart/form-data': { schema }, 'application/json': { schema: { ...schema, properties: fields.properties ?? {} } } } };
}

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
      const form = MULTIPART[`${method.toUpperCase()} ${path}`];
      if (form) op.requestBody = multipartBody(form) as Operation['requestBody'];
      // @fastify/swagger writes a placeholder 200 ("Default Response", no content) for a route
      // without response schemas; a declared schema keeps its content, with a real description.
      for (const [status, r] of Object.entries(responses) as [string, { description?: string; content?: unknown }][]) {
        if (r.description !== 'Default Response') continue;
        if (r.content) r.description = status.startsWith('2') ? 'Success' : 'Error';
        else delete responses[status];
      }
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

/**
 * Answers are checked against the route's response schema (a drifted answer is a 500 and a test
 * failure, never a silent lie in the document) and then sent as the handler made them: a schema
 * describes an answer, it never trims a field a client reads.
 */
export const checkedSerializerCompiler: FastifySerializerCompiler<z.ZodType> =
  ({ schema, method, url }) =>
  (data) => {
    const result = schema.safeParse(data);
    if (!result.success) throw new ResponseSerializationError(method, url, { cause: result.error });
    return JSON.stringify(data);
  };

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
