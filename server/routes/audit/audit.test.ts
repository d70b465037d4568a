import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CURSOR_INVALID } from '@parley/shared';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { buildAccount, buildMember, call } from '../../test/factories.js';
import { recordAudit } from '../../services/audit.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const UA = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';
const log = (token: string, query = '') => call(t.app, 'GET', `/api/vms/audit-log${query}`, { token });

describe('audit log', () => {
  it('records sign-ins, failed sign-ins, member and settings changes: who, when, from where', async () => {
    const owner = await buildAccount(t.app);
    const before = new Date();
    const bad = await call(t.app, 'POST', '/api/vms/login', { body: { email: owner.email, password: 'wrong-password' }, headers: { 'user-agent': UA } });
    expect(bad.status).toBe(401);
    const good = await call(t.app, 'POST', '/api/vms/login', { body: { email: owner.email, password: owner.password }, headers: { 'user-agent': UA } });
    expect(good.status).toBe(200);
    const added = await call(t.app, 'POST', '/api/vms/team', { token: owner.token, body: { name: 'Ann Agent', email: `ann-${Date.now()}@example.com`, password: 'Passw0rd!', role_id: 2 } });
    expect(added.status).toBe(201);
    expect((await call(t.app, 'POST', '/api/vms/greetings', { token: owner.token, body: { initial_greeting: 'Hi', follow_up_greeting: 'Still there?' } })).status).toBe(200);

    const res = await log(owner.token);
    expect(res.status).toBe(200);
    expect(res.body.has_more).toBe(false);
    expect(res.body.next_cursor).toBeNull();
    const entries = res.body.data as { action: string; target: string; actor: { id: number; email: string }; ip: string; device: string; created_at: string }[];
    expect(entries.map((e) => e.action)).toEqual(['settings.updated', 'member.added', 'auth.signed_in', 'auth.sign_in_failed']);
    const [settings, member, signedIn, failed] = entries;
    expect(member!.target).toBe(`user:${added.body.data.id}`);
    expect(settings!.target).toBe('greetings');
    for (const e of [signedIn!, failed!]) {
      expect(e.actor).toEqual({ id: owner.user.id, email: owner.email, name: 'Olivia Owner' });
      expect(e.ip).toBe('127.0.0.1');
      expect(e.device).toBe('Chrome on macOS (Desktop)');
      expect(new Date(e.created_at).getTime()).toBeGreaterThanOrEqual(before.getTime() - 1000);
    }
  });

  it('records the assistant’s, the ratings survey’s and the widget language’s settings changes', async () => {
    const owner = await buildAccount(t.app);
    expect((await call(t.app, 'POST', '/api/chatbot/settings', { token: owner.token, body: { auto_answer_enabled: true } })).status).toBe(200);
    expect((await call(t.app, 'PUT', '/api/vms/ratings/settings', { token: owner.token, body: { enabled: false } })).status).toBe(200);
    expect((await call(t.app, 'PUT', '/api/vms/widget-language', { token: owner.token, body: { language: 'fr', greetings_by_language: {} } })).status).toBe(200);
    const entries = (await log(owner.token, '?action=settings.updated')).body.data as { target: string; detail: unknown; actor: { id: number } }[];
    expect(entries.map((e) => [e.target, e.detail, e.actor.id])).toEqual([
      ['widget_language', { language: 'fr' }, owner.user.id],
      ['ratings', { enabled: false }, owner.user.id],
      ['ai_settings', { fields: ['auto_answer_enabled'] }, owner.user.id],
    ]);
  });

  it('filters by action, actor and time, and pages with limit + cursor without gaps or repeats', async () => {
    const owner = await buildAccount(t.app);
    const admin = await buildMember(t.app, owner, 'Admin');
    const accountId = owner.user.account_id;
    for (let i = 0; i < 5; i++) await recordAudit(t.app.db, { accountId, actorUserId: owner.user.id, action: 'settings.updated', target: `n:${i}` });
    await recordAudit(t.app.db, { accountId, actorUserId: admin.id, action: 'visitor.erased', target: 'visitor:x' });

    const erased = await log(owner.token, '?action=visitor.erased');
    expect(erased.body.data.map((e: { target: string }) => e.target)).toEqual(['visitor:x']);
    const byAdmin = await log(owner.token, `?actor_user_id=${admin.id}`);
    expect(byAdmin.body.data.map((e: { action: string }) => e.action)).toEqual(['visitor.erased']);
    expect((await log(owner.token, `?from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).body.data).toEqual([]);

    const seen: string[] = [];
    let cursor = '';
    for (let pageNo = 0; pageNo < 10; pageNo++) {
      const page = await log(owner.token, `?action=settings.updated&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((e: { target: string }) => e.target));
      if (!page.body.has_more) break;
      cursor = page.body.next_cursor;
    }
    expect(seen).toEqual(['n:4', 'n:3', 'n:2', 'n:1', 'n:0']);
  });

  it('refuses bad filters with 422 in the envelope', async () => {
    const owner = await buildAccount(t.app);
    const badCursor = await log(owner.token, '?cursor=zzzz');
    expect(badCursor.status).toBe(422);
    expect(badCursor.body).toMatchObject({ message: CURSOR_INVALID, errors: { cursor: [CURSOR_INVALID] } });
    expect((await log(owner.token, '?limit=0')).status).toBe(422);
    expect((await log(owner.token, '?from=yesterday')).status).toBe(422);
  });

  it('is the owner’s only: Admin and Agent get 403, no token 401', async () => {
    const owner = await buildAccount(t.app);
    for (const role of ['Admin', 'Agent'] as const) {
      const member = await buildMember(t.app, owner, role);
      const res = await log(member.token);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ message: 'You do not have permission to do this', error: 'You do not have permission to do this' });
    }
    expect((await call(t.app, 'GET', '/api/vms/audit-log')).status).toBe(401);
  });

  it('never shows another account’s entries, even by filter', async () => {
    const a = await buildAccount(t.app);
    const b = await buildAccount(t.app);
    await recordAudit(t.app.db, { accountId: a.user.account_id, actorUserId: a.user.id, action: 'visitor.exported', target: 'visitor:a' });
    expect((await log(b.token, '?action=visitor.exported')).body.data).toEqual([]);
    expect((await log(b.token, `?actor_user_id=${a.user.id}`)).body.data).toEqual([]);
    expect((await log(a.token, '?action=visitor.exported')).body.data).toHaveLength(1);
  });

  it('keeps who acted after the member is deleted', async () => {
    const owner = await buildAccount(t.app);
    const agent = await buildMember(t.app, owner, 'Agent');
    await recordAudit(t.app.db, { accountId: owner.user.account_id, actorUserId: agent.id, action: 'auth.signed_in', target: `user:${agent.id}` });
    expect((await call(t.app, 'DELETE', `/api/vms/team/${agent.id}`, { token: owner.token })).status).toBe(200);
    const entries = (await log(owner.token)).body.data as { action: string; actor: { id: number | null; email: string } }[];
    expect(entries.map((e) => e.action)).toEqual(['member.deleted', 'auth.signed_in']);
    expect(entries[1]!.actor).toEqual({ id: null, email: agent.email, name: null });
  });
});
