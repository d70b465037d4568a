import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildChattingVisitor } from '../test/chatFactories.js';
import { buildAccount, call, type TestOwner } from '../test/factories.js';
import { createTestApp, type TestApp } from '../test/harness.js';
import { jsonSchemaOf } from '../test/openApiSchema.js';

/**
 * The OpenAPI document against real answers: every route of the document is called (without a
 * token, and as the owner with an empty body), and each answer's status must be one the
 * document lists for that operation, its body valid against the schema given for it (the error
 * envelope for every 4xx/5xx).
 */
type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema?: object }> }>; security?: unknown[] }>>;
  components: { schemas: Record<string, object> };
};
let t: TestApp;
let doc: Doc;
let owner: TestOwner;
let visitorId: string;
const ajv = new Ajv({ strict: false, allErrors: true });

beforeAll(async () => {
  t = await createTestApp();
  doc = (await call(t.app, 'GET', '/api/openapi.json')).body as Doc;
  ajv.addSchema({ $id: 'doc', components: jsonSchemaOf(doc.components) }, 'doc');
  owner = await buildAccount(t.app);
  visitorId = (await buildChattingVisitor(t.app, owner.widgetKey)).id;
});
afterAll(() => t.close());

/** Operations never called as the owner here: they end the session or the account. */
const DESTRUCTIVE = new Set(['POST /api/vms/logout', 'DELETE /api/vms/user/delete']);

function check(path: string, method: string, status: number, body: unknown): string[] {
  const op = doc.paths[path]![method]!;
  const documented = op.responses[String(status)];
  if (!documented) return [`${method.toUpperCase()} ${path}: answered ${status}, documented ${Object.keys(op.responses).join(', ')}`];
  const schema = documented.content?.['application/json']?.schema;
  if (!schema) return [];
  const fixed = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/'));
  const validate = ajv.compile(jsonSchemaOf(fixed) as object);
  return validate(body) ? [] : [`${method.toUpperCase()} ${path} ${status}: ${ajv.errorsText(validate.errors)}`];
}

const urlOf = (path: string) => path.replace(/\{[^}]+\}/g, (m) => (/visitor/i.test(m) ? visitorId : '00000000-0000-4000-8000-000000000000'));

describe('GET /api/openapi.json', () => {
  it('describes the error envelope and POST /api/widget/visitors answering 201', async () => {
    expect(doc.components.schemas.ErrorEnvelope).toMatchObject({ required: ['message', 'error'] });
    expect(Object.keys(doc.paths['/api/widget/visitors']!.post!.responses)).toContain('201');
    const res = await call(t.app, 'POST', '/api/widget/visitors', { body: { unique_code: owner.widgetKey } });
    expect(res.status).toBe(201);
    expect(check('/api/widget/visitors', 'post', res.status, res.body)).toEqual([]);
  });

  it('describes the bodies and queries the chatbot review and the widget language read, from the same zod schemas', () => {
    type Body = { requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> } };
    const fields = (path: string, method: string) => Object.keys((doc.paths[path]![method] as Body).requestBody?.content['application/json']?.schema.properties ?? {});
    expect(fields('/api/vms/widget-language', 'put')).toEqual(['language', 'greetings_by_language']);
    expect(fields('/api/chatbot/knowledge/{id}', 'patch')).toEqual(['question', 'answer', 'status']);
    expect(fields('/api/chatbot/feedback/{id}', 'post')).toEqual(['decision']);
    const query = (path: string) => ((doc.paths[path]!.get as { parameters?: { in: string; name: string }[] }).parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
    expect(query('/api/chatbot/knowledge').sort()).toEqual(['cursor', 'limit', 'status']);
    expect(query('/api/chatbot/feedback').sort()).toEqual(['cursor', 'limit']);
  });

  it('lists the refusals particular to an operation: a taken email, a wrong password, a conflict, a body that is not JSON', async () => {
    const calls: [string, string, number, Awaited<ReturnType<typeof call>>][] = [
      ['/api/vms/register', 'post', 409, await call(t.app, 'POST', '/api/vms/register', { body: { name: 'Again', email: owner.email, password: owner.password, password_confirmation: owner.password } })],
      ['/api/vms/login', 'post', 401, await call(t.app, 'POST', '/api/vms/login', { body: { email: owner.email, password: 'not-the-password' } })],
      ['/api/user/subscription/scheduled-change', 'delete', 409, await call(t.app, 'DELETE', '/api/user/subscription/scheduled-change', { token: owner.token })],
      ['/api/vms/user/two-factor/recovery-codes', 'post', 409, await call(t.app, 'POST', '/api/vms/user/two-factor/recovery-codes', { token: owner.token, body: { password: owner.password } })],
      ['/api/vms/canned-replies', 'post', 400, await call(t.app, 'POST', '/api/vms/canned-replies', { token: owner.token, body: '{"title": ', headers: { 'content-type': 'application/json' } })],
    ];
    const problems: string[] = [];
    for (const [path, method, status, res] of calls) {
      expect(res.status, `${method} ${path}`).toBe(status);
      problems.push(...check(path, method, res.status, res.body));
    }
    expect(problems).toEqual([]);
  });

  it('lists every status the routes answer without a token, with the envelope', async () => {
    const problems: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const method of Object.keys(ops)) {
        const res = await call(t.app, method.toUpperCase() as 'GET', urlOf(path), method === 'get' || method === 'delete' ? {} : { body: {} });
        problems.push(...check(path, method, res.status, res.body));
      }
    }
    expect(problems).toEqual([]);
  });

  it('lists every status the routes answer to the owner, with valid bodies', async () => {
    const problems: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const method of Object.keys(ops)) {
        if (DESTRUCTIVE.has(`${method.toUpperCase()} ${path}`) || !ops[method]!.security?.length || path.startsWith('/api/widget/')) continue;
        const res = await call(t.app, method.toUpperCase() as 'GET', urlOf(path), { token: owner.token, ...(method === 'get' || method === 'delete' ? {} : { body: {} }) });
        problems.push(...check(path, method, res.status, res.body));
      }
    }
    expect(problems).toEqual([]);
  });
});
