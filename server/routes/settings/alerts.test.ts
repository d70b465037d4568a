import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAccount, buildMember, call } from '../../test/factories.js';
import { createTestApp, type TestApp } from '../../test/harness.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const getAlerts = (token: string) => call(t.app, 'GET', '/api/vms/user/alerts', { token });
const putAlerts = (token: string, body: unknown) => call(t.app, 'PUT', '/api/vms/user/alerts', { token, body });

describe('GET /api/vms/user/alerts', () => {
  it('answers both alerts on for a new user, and needs a token', async () => {
    const owner = await buildAccount(t.app);
    const res = await getAlerts(owner.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'success', data: { desktop: true, sound: true } });
    const anonymous = await call(t.app, 'GET', '/api/vms/user/alerts');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.message).toBe('No authentication token found');
  });
});

describe('PUT /api/vms/user/alerts', () => {
  it('changes only the fields sent, and GET shows them', async () => {
    const owner = await buildAccount(t.app);
    const off = await putAlerts(owner.token, { sound: false });
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ message: 'success', data: { desktop: true, sound: false } });
    const both = await putAlerts(owner.token, { desktop: false });
    expect(both.body.data).toEqual({ desktop: false, sound: false });
    expect((await getAlerts(owner.token)).body.data).toEqual({ desktop: false, sound: false });
    const none = await putAlerts(owner.token, {});
    expect(none.status).toBe(200);
    expect(none.body.data).toEqual({ desktop: false, sound: false });
  });

  it('is per user: an Agent and an Admin change their own, never the owner\'s or each other\'s', async () => {
    const owner = await buildAccount(t.app);
    const agent = await buildMember(t.app, owner, 'Agent');
    const admin = await buildMember(t.app, owner, 'Admin');
    expect((await putAlerts(agent.token, { desktop: false })).status).toBe(200);
    expect((await putAlerts(admin.token, { sound: false })).status).toBe(200);
    expect((await getAlerts(agent.token)).body.data).toEqual({ desktop: false, sound: true });
    expect((await getAlerts(admin.token)).body.data).toEqual({ desktop: true, sound: false });
    expect((await getAlerts(owner.token)).body.data).toEqual({ desktop: true, sound: true });
  });

  it('is per account: another account\'s user is untouched', async () => {
    const a = await buildAccount(t.app);
    const b = await buildAccount(t.app);
    await putAlerts(a.token, { desktop: false, sound: false });
    expect((await getAlerts(b.token)).body.data).toEqual({ desktop: true, sound: true });
  });

  it('refuses bad input with the envelope and changes nothing', async () => {
    const owner = await buildAccount(t.app);
    for (const body of [{ desktop: 'no' }, { sound: 1 }, { desktop: false, volume: 3 }]) {
      const res = await putAlerts(owner.token, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(typeof res.body.message, JSON.stringify(body)).toBe('string');
    }
    const bad = await putAlerts(owner.token, { desktop: 'no' });
    expect(bad.body.errors.desktop).toEqual(['Must be true or false']);
    expect((await getAlerts(owner.token)).body.data).toEqual({ desktop: true, sound: true });
  });

  it('needs a token', async () => {
    const res = await putAlerts('', { desktop: false });
    expect(res.status).toBe(401);
  });
});
