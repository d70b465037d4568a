import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import type { FastifySerializerCompiler } from 'fastify/types/schema.js';
import { jsonSchemaTransform, ResponseSerializationError } from 'fastify-type-provider-zod';
import { chatWidgetSettingsSchema, consoleMessageSchema, ERROR_CODES, widgetLanguageSchema, widgetMessageSchema, widgetSettingsSchema } from '@parley/shared';
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

/** JSON bodies a handler validates itself (with the same zod schema), so the route declares none. */
const JSON_BODIES: Record<string, z.ZodType> = {
  'PUT /api/vms/widget-language': widgetLanguageSchema,
};

function multipartBody(form: { fields: z.ZodType; files: Record<string, object> }): object {
  const fields = z.toJSONSchema(form.fields, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, object>; required?: string[] };
  const schema = { type: 'object', properties: { ...fields.properties, ...form.files }, required: fields.required ?? [] };
  return { required: true, content: { 'multipart/form-data': { schema }, 'application/json': { schema: { ...schema, properties: fields.properties ?? {} } } } };
}

const ERROR_TEXT: Record<string, string> = {
  '400': 'The body is not valid JSON (or multipart), is empty, or holds a NUL character',
  '401': 'No token, or an unknown, expired or revoked token or API key',
  '403': 'The role, or the API key’s scopes, may not make this call',
  '404': 'Not found (also another account’s row)',
  '413': 'Too large',
  '415': 'Not an accepted file type',
  '422': 'Validation failed: `errors` holds the messages per field',
  '429': 'Rate limited: wait `Retry-After` seconds',
  '500': 'Unexpected error (never a stack trace)',
  '503': 'The database is unavailable for a moment: wait `Retry-After` seconds (`code`: `unavailable`)',
};

/** Refusals particular to some operations, beside the ones every operation documents. */
const MORE_ERRORS: Record<string, Record<string, string>> = {
  'POST /api/vms/register': { '409': 'The email is already taken' },
  'POST /api/vms/team': { '409': 'The email is already taken' },
  'POST /api/vms/login': { '401': 'Invalid email or password' },
  'POST /api/vms/login/2fa': { '401': 'The code is not valid, or the sign-in expired (start again)' },
  'POST /api/vms/login/2fa/setup': { '401': 'The sign-in expired (start again)' },
  'POST /api/vms/login/2fa/enable': { '401': 'The code is not valid, or the sign-in expired', '409': 'Two-factor is not set up, or already on' },
  'POST /api/vms/user/two-factor/setup': { '409': 'Two-factor is already on' },
  'POST /api/vms/user/two-factor/enable': { '409': 'Two-factor is not set up, or already on' },
  'POST /api/vms/user/two-factor/recovery-codes': { '409': 'Two-factor is not on' },
  'POST /api/user/subscription/downgrade': { '409': 'On Starter: no paid plan or trial to end' },
  'POST /api/user/subscription/cancel': { '409': 'On Starter: no paid plan or trial to end' },
  'DELETE /api/user/subscription/scheduled-change': { '409': 'No plan change is scheduled' },
  'POST /api/initialize-payment': { '502': 'The payment provider is unavailable', '503': 'No payment provider is configured on this server' },
  'GET /api/verify-payment/{reference}': { '502': 'The payment provider is unavailable' },
  'POST /api/widget/transcript': { '409': 'Nothing to send yet (`code`: `transcript_nothing_yet`)' },
  'POST /api/widget/rating': { '409': 'Already rated (`code`: `already_rated`)' },
  'POST /api/widget/triggers/{id}/fire': { '409': 'Already shown to this visitor' },
  'POST /api/chatbot/sources': { '409': 'This website is already a source' },
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
      code: { type: 'string', enum: [...ERROR_CODES], description: 'A stable code of some refusals, for a client to word them itself (only ever added to)' },
    },
  };
  const envelope = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } } });
  for (const [path, ops] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(ops)) {
      op.responses ??= {};
      const responses = op.responses;
      const form = MULTIPART[`${method.toUpperCase()} ${path}`];
      if (form) op.requestBody = multipartBody(form) as Operation['requestBody'];
      const json = JSON_BODIES[`${method.toUpperCase()} ${path}`];
      if (json && !op.requestBody) {
        const { $schema: _, ...schema } = z.toJSONSchema(json, { io: 'input', unrepresentable: 'any' });
        op.requestBody = { required: true, content: { 'application/json': { schema } } } as Operation['requestBody'];
      }
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
      const statuses = ['422', '429', '500', '503'];
      if (method !== 'get') statuses.push('400');
      if (op.security?.length) statuses.push('401', '403');
      if (path.includes('{')) statuses.push('404');
      if (op.requestBody?.content?.['multipart/form-data'] || /messages|widget-settings|chatbot|storage/.test(path)) statuses.push('413', '415');
      const more = MORE_ERRORS[`${method.toUpperCase()} ${path}`] ?? {};
      for (const [s, text] of Object.entries(more)) responses[s] ??= envelope(text);
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
