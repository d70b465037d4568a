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
