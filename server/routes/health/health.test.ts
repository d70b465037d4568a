import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { call } from '../../test/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('operators', () => {
  it('GET /healthz and /readyz answer ok while the database answers', async () => {
    expect((await call(t.app, 'GET', '/healthz')).body).toEqual({ status: 'ok' });
    const ready = await call(t.app, 'GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.checks.database).toBe('ok');
  });

  it('GET /api/openapi.json documents every console and widget call of SPEC.md section 7', async () => {
    const res = await call(t.app, 'GET', '/api/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\./);
    const paths = Object.keys(res.body.paths);
    for (const p of [
      '/api/vms/register',
      '/api/vms/login',
      '/api/vms/logout',
      '/api/vms/user',
      '/api/vms/user/update',
      '/api/vms/password/update',
      '/api/vms/user/delete',
      '/api/vms/conversations',
      '/api/vms/visitor',
      '/api/vms/messages/{visitor_id}',
      '/api/vms/messages',
      '/api/vms/integration',
      '/api/vms/integration-metrics',
      '/api/vms/widget-settings',
      '/api/vms/chatwidget-settings',
      '/api/vms/greetings',
      '/api/vms/account-info',
      '/api/vms/team',
      '/api/vms/users',
      '/api/vms/team/{id}',
      '/api/vms/team/{id}/assign',
      '/api/plans',
      '/api/user/subscriptions',
      '/api/widget-settings',
      '/api/widget/visitors',
      '/api/widget/messages',
      '/api/widget/visitor',
      '/api/widget/events',
    ]) {
      expect(paths, p).toContain(p);
    }
    // Request schemas come from the shared zod schemas.
    const register = res.body.paths['/api/vms/register'].post.requestBody.content['application/json'].schema;
    expect(register.required).toEqual(expect.arrayContaining(['name', 'email', 'password', 'password_confirmation']));
  });

  it('answers unknown API paths with 404 in the envelope', async () => {
    const res = await call(t.app, 'GET', '/api/vms/nope');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Not found', error: 'Not found' });
  });
});
