import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './harness.js';
import { buildAccount, buildMember, call } from './factories.js';

/**
 * Walks every route the OpenAPI document marks as needing a bearer token: without one each
 * answers 401 in the envelope; with a team member's token, each route PRODUCT.md section 2
 * reserves for the owner answers 403.
 */
let t: TestApp;
const routes: { method: string; url: string }[] = [];
beforeAll(async () => {
  t = await createTestApp();
  const doc = (await call(t.app, 'GET', '/api/openapi.json')).body as {
    paths: Record<string, Record<string, { security?: unknown[] }>>;
  };
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      if (op.security?.length && !path.startsWith('/api/widget/')) {
        routes.push({ method: method.toUpperCase(), url: path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000') });
      }
    }
  }
});
afterAll(() => t.close());

const OWNER_ONLY = [
  'GET /api/vms/team',
  'GET /api/vms/users',
  'POST /api/vms/team',
  'DELETE /api/vms/team/00000000-0000-4000-8000-000000000000',
  'POST /api/vms/team/00000000-0000-4000-8000-000000000000/assign',
  'PATCH /api/vms/team/00000000-0000-4000-8000-000000000000',
  'GET /api/user/subscriptions',
  'GET /api/vms/storage',
  'DELETE /api/vms/user/delete',
  'GET /api/vms/audit-log',
  'PUT /api/vms/security/settings',
  'POST /api/vms/team/00000000-0000-4000-8000-000000000000/sign-out',
];
const ADMIN_WRITES = [
  'POST /api/vms/widget-settings',
  'POST /api/vms/chatwidget-settings',
  'POST /api/vms/greetings',
  'POST /api/vms/account-info',
  'POST /api/vms/canned-replies',
  'POST /api/vms/labels',
  'PUT /api/vms/ratings/settings',
  'POST /api/vms/triggers',
];

describe('route matrix', () => {
  it('finds the console routes in the OpenAPI document', () => {
    expect(routes.length).toBeGreaterThanOrEqual(24);
  });

  it('answers 401 with the envelope on every secured route without a token', async () => {
    for (const r of routes) {
      const res = await call(t.app, r.method as 'GET', r.url, r.method === 'GET' || r.method === 'DELETE' ? {} : { body: {} });
      expect(res.status, `${r.method} ${r.url}`).toBe(401);
      expect(res.body.message, `${r.method} ${r.url}`).toBe('No authentication token found');
    }
  });

  it('answers 403 to team members on owner-only routes, and to Agents on settings writes', async () => {
    const owner = await buildAccount(t.app);
    const admin = await buildMember(t.app, owner, 'Admin');
    const agent = await buildMember(t.app, owner, 'Agent');
    for (const key of OWNER_ONLY) {
      const [method, url] = key.split(' ') as [string, string];
      for (const member of [admin, agent]) {
        const res = await call(t.app, method as 'GET', url, { token: member.token, ...(method === 'POST' || method === 'PATCH' ? { body: {} } : {}) });
        expect(res.status, `${key} as member`).toBe(403);
      }
    }
    for (const key of ADMIN_WRITES) {
      const [method, url] = key.split(' ') as [string, string];
      const res = await call(t.app, method as 'POST', url, { token: agent.token, body: {} });
      expect(res.status, `${key} as Agent`).toBe(403);
    }
    // The owner's account is still there: the members' DELETE /user/delete changed nothing.
    expect((await call(t.app, 'GET', '/api/vms/user', { token: owner.token })).status).toBe(200);
  });
});
