import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { buildAccount, buildMember, call } from '../../test/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/** The console hides what a user may not do from `permissions`; these are the server's own rules. */
describe('the user carries the permissions the policies give it', () => {
  it('owner, Admin and Agent get the rules they pass, and the server enforces exactly those', async () => {
    const owner = await buildAccount(t.app);
    const admin = await buildMember(t.app, owner, 'Admin');
    const agent = await buildMember(t.app, owner, 'Agent');
    const perms = async (token: string) => (await call(t.app, 'GET', '/api/vms/user', { token })).body.permissions as string[];

    const o = await perms(owner.token);
    expect(o).toEqual(expect.arrayContaining(['team.manage', 'billing.manage', 'account.delete', 'settings.write']));
    const a = await perms(admin.token);
    expect(a).toContain('settings.write');
    expect(a).not.toContain('team.manage');
    expect(a).not.toContain('billing.manage');
    const g = await perms(agent.token);
    expect(g).toContain('settings.read');
    expect(g).not.toContain('settings.write');
    expect(g).not.toContain('team.manage');

    // Login and register answer the same user shape.
    const login = await call(t.app, 'POST', '/api/vms/login', { body: { email: agent.email, password: 'member-pass' } });
    expect(login.body.user.permissions).toEqual(g);

    // What the list says is what the server does.
    const greet = { initial_greeting: 'Hi', follow_up_greeting: '' };
    expect((await call(t.app, 'POST', '/api/vms/greetings', { token: agent.token, body: greet })).status).toBe(403);
    expect((await call(t.app, 'POST', '/api/vms/greetings', { token: admin.token, body: greet })).status).toBe(200);
    expect((await call(t.app, 'GET', '/api/vms/team', { token: admin.token })).status).toBe(403);
    expect((await call(t.app, 'GET', '/api/vms/team', { token: owner.token })).status).toBe(200);
  });
});
