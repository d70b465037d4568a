import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAccount, buildMember, call } from '../../test/factories.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { connect, connected, listen } from '../../test/sockets.js';

let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await createTestApp();
  base = await listen(t.app);
});
afterAll(() => t.close());

const PHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const list = (token: string) => call(t.app, 'GET', '/api/vms/sessions', { token });
const signIn = async (email: string, password: string, ua?: string) =>
  (await call(t.app, 'POST', '/api/vms/login', { body: { email, password }, ...(ua ? { headers: { 'user-agent': ua } } : {}) })).body.token as string;

describe('active sessions', () => {
  it('each user sees their own sessions (device, IP, last used, which is this one) and ends any of them, its socket too', async () => {
    const owner = await buildAccount(t.app);
    const phone = await signIn(owner.email, owner.password, PHONE);
    const res = await list(owner.token);
    expect(res.status).toBe(200);
    const sessions = res.body.data as { id: number; device: string; ip: string; last_used_at: string; current: boolean }[];
    expect(sessions).toHaveLength(2);
    const phoneRow = sessions.find((s) => s.device === 'Safari on iOS (Mobile)')!;
    expect(phoneRow).toMatchObject({ ip: '127.0.0.1', current: false });
    expect(sessions.filter((s) => s.current)).toHaveLength(1);
    expect(Date.parse(phoneRow.last_used_at)).toBeGreaterThan(Date.now() - 60_000);

    const socket = connect(base, { token: phone });
    await connected(socket);
    const closed = new Promise((resolve) => socket.once('disconnect', resolve));
    expect((await call(t.app, 'DELETE', `/api/vms/sessions/${phoneRow.id}`, { token: owner.token })).body).toEqual({ message: 'success' });
    await closed;
    expect((await call(t.app, 'GET', '/api/vms/user', { token: phone })).status).toBe(401);
    expect((await list(owner.token)).body.data).toHaveLength(1);
    expect((await call(t.app, 'GET', '/api/vms/audit-log?action=session.revoked', { token: owner.token })).body.data).toHaveLength(1);
  });

  it('never lists or ends another user’s session (404, as for an unknown id)', async () => {
    const owner = await buildAccount(t.app);
    const agent = await buildMember(t.app, owner, 'Agent');
    const other = await buildAccount(t.app);
    const agentSession = (await list(agent.token)).body.data[0].id as number;
    for (const token of [owner.token, other.token]) {
      const res = await call(t.app, 'DELETE', `/api/vms/sessions/${agentSession}`, { token });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Session not found', error: 'Session not found' });
      expect((await list(token)).body.data.map((s: { id: number }) => s.id)).not.toContain(agentSession);
    }
    expect((await call(t.app, 'DELETE', '/api/vms/sessions/999999999', { token: owner.token })).status).toBe(404);
    expect((await call(t.app, 'GET', '/api/vms/user', { token: agent.token })).status).toBe(200);
  });

  it('the owner signs a member out everywhere; members may not, other accounts’ members are 404', async () => {
    const owner = await buildAccount(t.app);
    const agent = await buildMember(t.app, owner, 'Agent');
    const admin = await buildMember(t.app, owner, 'Admin');
    const second = await signIn(agent.email, 'member-pass');
    const socket = connect(base, { token: second });
    await connected(socket);
    const closed = new Promise((resolve) => socket.once('disconnect', resolve));

    expect((await call(t.app, 'POST', `/api/vms/team/${agent.id}/sign-out`, { token: admin.token })).status).toBe(403);
    const other = await buildAccount(t.app);
    expect((await call(t.app, 'POST', `/api/vms/team/${agent.id}/sign-out`, { token: other.token })).status).toBe(404);
    expect((await call(t.app, 'GET', '/api/vms/user', { token: agent.token })).status).toBe(200);

    const res = await call(t.app, 'POST', `/api/vms/team/${agent.id}/sign-out`, { token: owner.token });
    expect(res.body).toEqual({ message: 'success', sessions_ended: 2 });
    await closed;
    for (const token of [agent.token, second]) expect((await call(t.app, 'GET', '/api/vms/user', { token })).status).toBe(401);
    expect((await call(t.app, 'GET', '/api/vms/user', { token: admin.token })).status).toBe(200);
    // The owner themself is no "member".
    expect((await call(t.app, 'POST', `/api/vms/team/${owner.user.id}/sign-out`, { token: owner.token })).status).toBe(404);
  });
});
