import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRIGGER_ALREADY_SHOWN, urlMatches } from '@parley/shared';
import { visitors } from '../../db/schema.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { buildAccount, buildMember, call, type TestOwner } from '../../test/factories.js';
import { buildVisitor } from '../../test/chatFactories.js';
import { eq } from 'drizzle-orm';

let t: TestApp;
let owner: TestOwner;
beforeAll(async () => {
  t = await createTestApp();
  owner = await buildAccount(t.app);
});
afterAll(() => t.close());

const trigger = { name: 'Pricing help', url_pattern: '/pricing*', seconds_on_page: 5, nth_page: 0, returning_only: false, message: 'Questions about plans?', sender_name: 'Sam', open_panel: false };
const create = (token: string, body: unknown) => call(t.app, 'POST', '/api/vms/triggers', { token, body });
const widgetList = (key: string, token?: string) => call(t.app, 'GET', `/api/widget/triggers?unique_code=${key}`, token ? { token } : {});
const fire = (token: string, id: number) => call(t.app, 'POST', `/api/widget/triggers/${id}/fire`, { token });

describe('proactive triggers', () => {
  it('owner and Admin create, edit and delete; an Agent reads only; bad input is 422 with nothing stored', async () => {
    const admin = await buildMember(t.app, owner, 'Admin');
    const agent = await buildMember(t.app, owner, 'Agent');
    const made = await create(admin.token, trigger);
    expect(made.status).toBe(201);
    expect(made.body.data).toMatchObject({ ...trigger, sender_avatar: '', enabled: true, id: expect.any(Number) });
    const id = made.body.data.id as number;
    expect((await create(agent.token, trigger)).status).toBe(403);
    expect((await call(t.app, 'PUT', `/api/vms/triggers/${id}`, { token: agent.token, body: trigger })).status).toBe(403);
    expect((await call(t.app, 'DELETE', `/api/vms/triggers/${id}`, { token: agent.token })).status).toBe(403);
    expect((await call(t.app, 'GET', '/api/vms/triggers', { token: agent.token })).body.data.map((x: { id: number }) => x.id)).toContain(id);

    const bad = await create(owner.token, { ...trigger, name: ' ', message: '', seconds_on_page: -1, nth_page: 1.5, sender_avatar: 'javascript:alert(1)' });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['message', 'name', 'nth_page', 'seconds_on_page', 'sender_avatar']);

    const edited = await call(t.app, 'PUT', `/api/vms/triggers/${id}`, { token: owner.token, body: { ...trigger, message: 'Need a hand choosing?', enabled: false } });
    expect(edited.body.data).toMatchObject({ message: 'Need a hand choosing?', enabled: false });
    expect((await call(t.app, 'DELETE', `/api/vms/triggers/${id}`, { token: owner.token })).status).toBe(200);
    expect((await call(t.app, 'DELETE', `/api/vms/triggers/${id}`, { token: owner.token })).status).toBe(404);
  });

  it("another account's trigger is a 404 to edit, delete or fire", async () => {
    const other = await buildAccount(t.app);
    const id = (await create(other.token, trigger)).body.data.id as number;
    expect((await call(t.app, 'PUT', `/api/vms/triggers/${id}`, { token: owner.token, body: trigger })).status).toBe(404);
    expect((await call(t.app, 'DELETE', `/api/vms/triggers/${id}`, { token: owner.token })).status).toBe(404);
    const v = await buildVisitor(t.app, owner.widgetKey);
    expect((await fire(v.token, id)).status).toBe(404);
    expect((await widgetList(owner.widgetKey)).body.data.map((x: { id: number }) => x.id)).not.toContain(id);
  });

  it('fires at most once per visitor per day, checked by the server; returning-visitor triggers only for returning visitors', async () => {
    const acct = await buildAccount(t.app);
    const id = (await create(acct.token, trigger)).body.data.id as number;
    const back = (await create(acct.token, { ...trigger, name: 'Welcome back', returning_only: true })).body.data.id as number;
    const off = (await create(acct.token, { ...trigger, name: 'Off', enabled: false })).body.data.id as number;
    const anonymous = (await widgetList(acct.widgetKey)).body.data.map((x: { id: number }) => x.id);
    expect(anonymous).toEqual([id]);

    const v = await buildVisitor(t.app, acct.widgetKey);
    expect((await widgetList(acct.widgetKey, v.token)).body.data.map((x: { id: number }) => x.id)).toEqual([id]);
    expect((await fire(v.token, id)).status).toBe(201);
    const again = await fire(v.token, id);
    expect(again.status).toBe(409);
    expect(again.body.message).toBe(TRIGGER_ALREADY_SHOWN);
    expect((await widgetList(acct.widgetKey, v.token)).body.data).toEqual([]);
    expect((await fire(v.token, off)).status).toBe(404);
    // Another visitor still gets it.
    const w = await buildVisitor(t.app, acct.widgetKey);
    expect((await fire(w.token, id)).status).toBe(201);

    // A visitor first seen an hour ago is returning.
    await t.app.database.db.update(visitors).set({ createdAt: new Date(Date.now() - 3_600_000) }).where(eq(visitors.id, w.id));
    expect((await widgetList(acct.widgetKey, w.token)).body.data.map((x: { id: number }) => x.id)).toEqual([back]);
    expect((await call(t.app, 'GET', '/api/widget/triggers?unique_code=nope')).status).toBe(404);
  });

  it('matches page patterns against the path, or the whole address when it has a scheme', () => {
    expect(urlMatches('', 'https://shop.example/any')).toBe(true);
    expect(urlMatches('/pricing*', 'https://shop.example/pricing/team?x=1')).toBe(true);
    expect(urlMatches('/pricing*', 'https://shop.example/blog/pricing')).toBe(false);
    expect(urlMatches('/a.b', 'https://shop.example/axb')).toBe(false);
    expect(urlMatches('https://shop.example/*', 'https://shop.example/x')).toBe(true);
    expect(urlMatches('https://shop.example/*', 'https://other.example/x')).toBe(false);
  });
});
