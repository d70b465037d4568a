import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY_SCOPE_FORBIDDEN, API_KEY_SCOPES, type ApiKeyScope } from '@parley/shared';
import { apiKeys, auditLog, roles, users } from '../../db/schema.js';
import { assignConversation, buildChattingVisitor } from '../../test/chatFactories.js';
import { buildAccount, buildMember, call, type TestOwner } from '../../test/factories.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { ROUTE_SCOPES } from './scopes.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const UUID = '00000000-0000-4000-8000-000000000000';

async function createKey(token: string, scopes: readonly ApiKeyScope[], name = 'CRM sync'): Promise<{ id: string; key: string }> {
  const res = await call(t.app, 'POST', '/api/vms/api-keys', { token, body: { name, scopes } });
  if (res.status !== 201) throw new Error(`key create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.data.id, key: res.body.data.key };
}

/** Every console route as Fastify registered it (`GET /api/vms/messages/:visitor_id`), from the OpenAPI document. */
async function securedConsoleRoutes(): Promise<{ key: string; method: string; url: string }[]> {
  const doc = (await call(t.app, 'GET', '/api/openapi.json')).body as { paths: Record<string, Record<string, { security?: unknown[] }>> };
  const out: { key: string; method: string; url: string }[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    if (path.startsWith('/api/widget/')) continue; // visitor tokens, not console tokens
    for (const [method, op] of Object.entries(ops)) {
      if (!op.security?.length) continue;
      const M = method.toUpperCase();
      out.push({ key: `${M} ${path.replace(/\{([^}]+)\}/g, ':$1')}`, method: M, url: path.replace(/\{[^}]+\}/g, UUID) });
    }
  }
  return out;
}

describe('creating, listing and revoking keys', () => {
  it('lets the owner create a key shown once, stored only as a hash, listed without it', async () => {
    const owner = await buildAccount(t.app);
    const res = await call(t.app, 'POST', '/api/vms/api-keys', { token: owner.token, body: { name: '  Zapier  ', scopes: ['conversations:read', 'conversations:read'] } });
    expect(res.status).toBe(201);
    const { key, ...dto } = res.body.data;
    expect(key).toMatch(/^prly_[A-Za-z0-9_-]{43}$/);
    expect(dto).toMatchObject({ name: 'Zapier', scopes: ['conversations:read'], prefix: key.slice(0, 11), last_used_at: null, user: { id: owner.user.id } });
    const [row] = await t.database.db.select().from(apiKeys).where(eq(apiKeys.id, dto.id));
    expect(JSON.stringify(row)).not.toContain(key);
    const list = await call(t.app, 'GET', '/api/vms/api-keys', { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([dto]);
    expect(JSON.stringify(list.body)).not.toContain(key);
  });

  it('refuses bad input with the field messages and stores nothing', async () => {
    const owner = await buildAccount(t.app);
    for (const [body, field, message] of [
      [{ scopes: ['stats:read'] }, 'name', 'Name is required'],
      [{ name: '   ', scopes: ['stats:read'] }, 'name', 'Name is required'],
      [{ name: 'x'.repeat(81), scopes: ['stats:read'] }, 'name', 'Name must be at most 80 characters'],
      [{ name: 'k', scopes: [] }, 'scopes', 'Choose at least one scope'],
      [{ name: 'k' }, 'scopes', 'Choose at least one scope'],
      [{ name: 'k', scopes: ['team:manage'] }, 'scopes.0', 'Unknown scope'],
    ] as const) {
      const res = await call(t.app, 'POST', '/api/vms/api-keys', { token: owner.token, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.errors[field], JSON.stringify(body)).toEqual([message]);
    }
    expect((await call(t.app, 'GET', '/api/vms/api-keys', { token: owner.token })).body.data).toEqual([]);
  });

  it('lets an Admin manage the account’s keys and refuses Agents (403)', async () => {
    const owner = await buildAccount(t.app);
    const admin = await buildMember(t.app, owner, 'Admin');
    const agent = await buildMember(t.app, owner, 'Agent');
    const ownersKey = await createKey(owner.token, ['stats:read']);
    expect((await call(t.app, 'GET', '/api/vms/api-keys', { token: admin.token })).body.data).toHaveLength(1);
    expect((await call(t.app, 'GET', '/api/vms/api-keys', { token: agent.token })).status).toBe(403);
    expect((await call(t.app, 'POST', '/api/vms/api-keys', { token: agent.token, body: { name: 'a', scopes: ['stats:read'] } })).status).toBe(403);
    expect((await call(t.app, 'DELETE', `/api/vms/api-keys/${ownersKey.id}`, { token: agent.token })).status).toBe(403);
    expect((await call(t.app, 'GET', '/api/vms/stats', { token: ownersKey.key })).status).toBe(200);
    expect((await call(t.app, 'DELETE', `/api/vms/api-keys/${ownersKey.id}`, { token: admin.token })).status).toBe(200);
  });

  it('revokes at once; another account’s key or an unknown id is 404', async () => {
    const owner = await buildAccount(t.app);
    const other = await buildAccount(t.app);
    const k = await createKey(owner.token, ['stats:read']);
    for (const id of [k.id, UUID, 'not-a-uuid']) {
      const res = await call(t.app, 'DELETE', `/api/vms/api-keys/${id}`, { token: other.token });
      expect(res.status, id).toBe(404);
      expect(res.body).toEqual({ message: 'API key not found', error: 'API key not found' });
    }
    expect((await call(t.app, 'GET', '/api/vms/stats', { token: k.key })).status).toBe(200);
    expect((await call(t.app, 'DELETE', `/api/vms/api-keys/${k.id}`, { token: owner.token })).status).toBe(200);
    const after = await call(t.app, 'GET', '/api/vms/stats', { token: k.key });
    expect(after.status).toBe(401);
    expect(after.body.message).toBe('Unauthenticated');
    // Both changes are in the owner's audit log, by whom, never with the key.
    const log = await t.database.db.select().from(auditLog).where(eq(auditLog.accountId, owner.user.account_id));
    expect(log.filter((e) => e.action.startsWith('api_key.')).map((e) => [e.action, e.target, e.actorUserId])).toEqual(
      expect.arrayContaining([
        ['api_key.created', `api_key:${k.id}`, owner.user.id],
        ['api_key.revoked', `api_key:${k.id}`, owner.user.id],
      ]),
    );
    expect(JSON.stringify(log)).not.toContain(k.key);
    expect(await t.database.db.select().from(auditLog).where(eq(auditLog.accountId, other.user.account_id)).then((r) => r.filter((e) => e.action.startsWith('api_key.')))).toEqual([]);
  });

  it('records the last-used time', async () => {
    const owner = await buildAccount(t.app);
    const k = await createKey(owner.token, ['stats:read']);
    await call(t.app, 'GET', '/api/vms/user', { token: k.key });
    const [listed] = (await call(t.app, 'GET', '/api/vms/api-keys', { token: owner.token })).body.data;
    expect(Date.now() - Date.parse(listed.last_used_at)).toBeLessThan(10_000);
  });
});

describe('the route matrix with keys', () => {
  let owner: TestOwner;
  let routes: Awaited<ReturnType<typeof securedConsoleRoutes>>;
  beforeAll(async () => {
    owner = await buildAccount(t.app);
    await buildChattingVisitor(t.app, owner.widgetKey);
    routes = await securedConsoleRoutes();
  });

  it('lists only routes that exist, and the matrix covers the console', () => {
    const registered = new Set(routes.map((r) => r.key));
    for (const key of Object.keys(ROUTE_SCOPES)) expect(registered.has(key), key).toBe(true);
    expect(routes.length).toBeGreaterThanOrEqual(40);
  });

  it('refuses every call outside the key’s scopes (403) and answers the rest as the creator’s session does', async () => {
    const keys = Object.fromEntries(await Promise.all(API_KEY_SCOPES.map(async (s) => [s, (await createKey(owner.token, [s], s)).key] as const)));
    const all = (await createKey(owner.token, API_KEY_SCOPES, 'all')).key;
    for (const r of routes) {
      const scope = ROUTE_SCOPES[r.key];
      const body = r.method === 'GET' || r.method === 'DELETE' ? {} : { body: {} };
      // Never a mutation that matters: a keyed call outside the scopes must fail before its handler.
      if (!scope) {
        const res = await call(t.app, r.method as 'GET', r.url, { token: all, ...body });
        expect(res.status, `${r.key} with an all-scopes key`).toBe(403);
        expect(res.body.message, r.key).toBe(API_KEY_SCOPE_FORBIDDEN);
        continue;
      }
      const session = await call(t.app, r.method as 'GET', r.url, { token: owner.token, ...body });
      for (const s of API_KEY_SCOPES) {
        const res = await call(t.app, r.method as 'GET', r.url, { token: keys[s]!, ...body });
        if (scope === 'any' || scope === s) expect(res.status, `${r.key} with ${s}`).toBe(session.status);
        else {
          expect(res.status, `${r.key} with ${s}`).toBe(403);
          expect(res.body.message).toBe(API_KEY_SCOPE_FORBIDDEN);
        }
      }
    }
    // The owner's session and account are untouched by everything refused above.
    expect((await call(t.app, 'GET', '/api/vms/user', { token: owner.token })).status).toBe(200);
  });

  it('never lets a key manage keys or webhooks, even with every scope', async () => {
    const all = (await createKey(owner.token, API_KEY_SCOPES, 'all')).key;
    const res = await call(t.app, 'POST', '/api/vms/api-keys', { token: all, body: { name: 'escalate', scopes: ['stats:read'] } });
    expect(res.status).toBe(403);
  });
});

describe('a key acts as its creator', () => {
  it('reads and writes only its own account: another account’s visitor is 404, lists hold only its rows', async () => {
    const a = await buildAccount(t.app);
    const b = await buildAccount(t.app);
    const va = await buildChattingVisitor(t.app, a.widgetKey, 'from A');
    const vb = await buildChattingVisitor(t.app, b.widgetKey, 'from B');
    const key = (await createKey(a.token, ['conversations:read', 'messages:send', 'visitors:manage'])).key;
    const list = await call(t.app, 'GET', '/api/vms/conversations', { token: key });
    expect(list.status).toBe(200);
    expect(JSON.stringify(list.body)).toContain(va.id);
    expect(JSON.stringify(list.body)).not.toContain(vb.id);
    expect((await call(t.app, 'GET', `/api/vms/messages/${vb.id}`, { token: key })).status).toBe(404);
    expect((await call(t.app, 'POST', '/api/vms/messages', { token: key, body: { visitor_id: vb.id, message: 'hi' } })).status).toBe(404);
    expect((await call(t.app, 'POST', `/api/vms/conversations/${vb.id}/status`, { token: key, body: { status: 'resolved' } })).status).toBe(404);
    const sent = await call(t.app, 'POST', '/api/vms/messages', { token: key, body: { visitor_id: va.id, message: 'Sent from the CRM' } });
    expect(sent.status).toBe(201);
    const thread = await call(t.app, 'GET', `/api/vms/messages/${va.id}`, { token: a.token });
    expect(JSON.stringify(thread.body)).toContain('Sent from the CRM');
    expect(JSON.stringify((await call(t.app, 'GET', `/api/vms/messages/${vb.id}`, { token: b.token })).body)).not.toContain('Sent from the CRM');
  });

  it('follows its creator’s role, and dies when the creator is disabled or deleted', async () => {
    const owner = await buildAccount(t.app);
    const admin = await buildMember(t.app, owner, 'Admin', { name: 'Ada Admin' });
    const v1 = await buildChattingVisitor(t.app, owner.widgetKey, 'one');
    const v2 = await buildChattingVisitor(t.app, owner.widgetKey, 'two');
    await assignConversation(t.app, v2.id, owner.user.id);
    const key = (await createKey(admin.token, ['conversations:read'])).key;
    expect((await call(t.app, 'GET', '/api/vms/user', { token: key })).body.name).toBe('Ada Admin');
    const seen = async () => JSON.stringify((await call(t.app, 'GET', '/api/vms/conversations', { token: key })).body);
    expect(await seen()).toContain(v2.id);
    // Demoted to Agent: the key now sees what an Agent sees (unassigned + their own), not v2.
    const [agentRole] = await t.database.db.select().from(roles).where(eq(roles.name, 'Agent'));
    await t.database.db.update(users).set({ roleId: agentRole!.id }).where(eq(users.id, admin.id));
    expect(await seen()).toContain(v1.id);
    expect(await seen()).not.toContain(v2.id);
    await t.database.db.update(users).set({ status: 'disabled' }).where(eq(users.id, admin.id));
    expect((await call(t.app, 'GET', '/api/vms/conversations', { token: key })).status).toBe(401);
    await t.database.db.update(users).set({ status: 'active' }).where(eq(users.id, admin.id));
    expect((await call(t.app, 'GET', '/api/vms/conversations', { token: key })).status).toBe(200);
    expect((await call(t.app, 'DELETE', `/api/vms/team/${admin.id}`, { token: owner.token })).status).toBe(200);
    expect((await call(t.app, 'GET', '/api/vms/conversations', { token: key })).status).toBe(401);
    expect(await t.database.db.select().from(apiKeys).where(eq(apiKeys.userId, admin.id))).toEqual([]);
  });
});

describe('rate limit per key', () => {
  it('answers 429 with Retry-After past the budget, for that key only', async () => {
    const limited = await createTestApp({ API_KEY_LIMIT_PER_MINUTE: '3' });
    try {
      const owner = await buildAccount(limited.app);
      const mk = async () =>
        (await call(limited.app, 'POST', '/api/vms/api-keys', { token: owner.token, body: { name: 'k', scopes: ['stats:read'] } })).body.data.key as string;
      const k1 = await mk();
      const k2 = await mk();
      for (let i = 0; i < 3; i++) expect((await call(limited.app, 'GET', '/api/vms/stats', { token: k1 })).status).toBe(200);
      const refused = await call(limited.app, 'GET', '/api/vms/stats', { token: k1 });
      expect(refused.status).toBe(429);
      expect(refused.body.message).toBe('Too many requests with this API key. Please slow down.');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect((await call(limited.app, 'GET', '/api/vms/stats', { token: k2 })).status).toBe(200);
      // The creator's own session is not counted against the key.
      expect((await call(limited.app, 'GET', '/api/vms/stats', { token: owner.token })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
