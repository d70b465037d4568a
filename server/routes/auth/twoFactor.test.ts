import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TWO_FACTOR_CHALLENGE_EXPIRED, TWO_FACTOR_CODE_INVALID, TWO_FACTOR_OWNER_FIRST, TWO_FACTOR_REQUIRED_BY_TEAM } from '@parley/shared';
import { buildAccount, buildMember, call } from '../../test/factories.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { connect, connected, listen } from '../../test/sockets.js';

let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await createTestApp({ TWO_FACTOR_LIMIT: '5' });
  base = await listen(t.app);
});
afterAll(() => t.close());

/** The code of the authenticator app `steps` periods from now. */
const codeOf = (secret: string, steps = 0) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + steps * 30_000 });
const login = (email: string, password: string) => call(t.app, 'POST', '/api/vms/login', { body: { email, password } });
const second = (challenge: string, code: string) => call(t.app, 'POST', '/api/vms/login/2fa', { body: { challenge, code } });

async function turnOn(token: string): Promise<{ secret: string; codes: string[] }> {
  const setup = await call(t.app, 'POST', '/api/vms/user/two-factor/setup', { token });
  expect(setup.status).toBe(200);
  expect(setup.body.data.qr).toMatch(/^data:image\/png;base64,/);
  expect(setup.body.data.otpauth_url).toContain(`secret=${setup.body.data.secret}`);
  const secret = setup.body.data.secret as string;
  const enabled = await call(t.app, 'POST', '/api/vms/user/two-factor/enable', { token, body: { code: codeOf(secret) } });
  expect(enabled.status).toBe(200);
  return { secret, codes: enabled.body.recovery_codes };
}

describe('two-factor sign-in', () => {
  it('set-up needs a code from the new secret; then sign-in asks for a code and answers SPEC’s { token, user }', async () => {
    const owner = await buildAccount(t.app);
    const setup = await call(t.app, 'POST', '/api/vms/user/two-factor/setup', { token: owner.token });
    const wrong = await call(t.app, 'POST', '/api/vms/user/two-factor/enable', { token: owner.token, body: { code: '000000' } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors).toEqual({ code: [TWO_FACTOR_CODE_INVALID] });
    // Until confirmed, sign-in is unchanged.
    expect(Object.keys((await login(owner.email, owner.password)).body).sort()).toEqual(['message', 'token', 'user']);
    const setupCode = codeOf(setup.body.data.secret);
    const enabled = await call(t.app, 'POST', '/api/vms/user/two-factor/enable', { token: owner.token, body: { code: setupCode } });
    const codes = enabled.body.recovery_codes as string[];
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    expect((await call(t.app, 'GET', '/api/vms/user/security', { token: owner.token })).body.data).toMatchObject({ two_factor_enabled: true, recovery_codes_left: 10 });

    const first = await login(owner.email, owner.password);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ message: 'success', two_factor_required: true, challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    // The code used for the set-up is spent; the next period's code works.
    expect((await second(first.body.challenge, setupCode)).status).toBe(401);
    const done = await second(first.body.challenge, codeOf(setup.body.data.secret, 1));
    expect(done.status).toBe(200);
    expect(Object.keys(done.body).sort()).toEqual(['message', 'token', 'user']);
    expect(done.body.user.email).toBe(owner.email);
    expect((await call(t.app, 'GET', '/api/vms/user', { token: done.body.token })).status).toBe(200);
    // A challenge works once.
    expect((await second(first.body.challenge, codeOf(setup.body.data.secret, 1))).body.message).toBe(TWO_FACTOR_CHALLENGE_EXPIRED);
  });

  it('a recovery code signs in once; users without two-factor see SPEC’s login unchanged', async () => {
    const owner = await buildAccount(t.app);
    const agent = await buildMember(t.app, owner, 'Agent');
    expect(Object.keys((await login(agent.email, 'member-pass')).body).sort()).toEqual(['message', 'token', 'user']);
    const { codes } = await turnOn(owner.token);
    const a = await login(owner.email, owner.password);
    expect((await second(a.body.challenge, codes[3]!.toUpperCase())).status).toBe(200);
    const b = await login(owner.email, owner.password);
    expect((await second(b.body.challenge, codes[3]!)).status).toBe(401);
    expect((await call(t.app, 'GET', '/api/vms/user/security', { token: owner.token })).body.data.recovery_codes_left).toBe(9);
  });

  it('rate limits code guesses with 429, and records failed second steps in the audit log', async () => {
    const owner = await buildAccount(t.app);
    const { secret } = await turnOn(owner.token);
    const { challenge } = (await login(owner.email, owner.password)).body;
    for (let i = 0; i < 5; i++) {
      const res = await second(challenge, '123456');
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: TWO_FACTOR_CODE_INVALID, error: TWO_FACTOR_CODE_INVALID });
    }
    const limited = await second(challenge, codeOf(secret, 1));
    expect(limited.status).toBe(429);
    const failed = (await call(t.app, 'GET', '/api/vms/audit-log?action=auth.sign_in_failed', { token: owner.token })).body.data;
    expect(failed).toHaveLength(5);
    expect(failed[0].detail).toEqual({ step: 'two_factor' });
  });

  it('turning off and new recovery codes ask for the password', async () => {
    const owner = await buildAccount(t.app);
    const { codes } = await turnOn(owner.token);
    const wrong = await call(t.app, 'POST', '/api/vms/user/two-factor/recovery-codes', { token: owner.token, body: { password: 'nope' } });
    expect(wrong.status).toBe(422);
    const fresh = await call(t.app, 'POST', '/api/vms/user/two-factor/recovery-codes', { token: owner.token, body: { password: owner.password } });
    expect(fresh.body.recovery_codes).toHaveLength(10);
    const c = await login(owner.email, owner.password);
    expect((await second(c.body.challenge, codes[0]!)).status).toBe(401); // the old ones stopped working
    expect((await call(t.app, 'POST', '/api/vms/user/two-factor/disable', { token: owner.token, body: { password: 'nope' } })).status).toBe(422);
    expect((await call(t.app, 'POST', '/api/vms/user/two-factor/disable', { token: owner.token, body: { password: owner.password } })).status).toBe(200);
    expect(Object.keys((await login(owner.email, owner.password)).body).sort()).toEqual(['message', 'token', 'user']);
    const actions = (await call(t.app, 'GET', '/api/vms/audit-log', { token: owner.token })).body.data.map((e: { action: string }) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['auth.two_factor_enabled', 'auth.recovery_codes_regenerated', 'auth.two_factor_disabled']));
  });
});

describe('the owner requires two-factor for the team', () => {
  it('owner only, after turning it on for themselves; members without it are signed out and set it up at their next sign-in', async () => {
    const owner = await buildAccount(t.app);
    const admin = await buildMember(t.app, owner, 'Admin');
    const require = (token: string, on: boolean) => call(t.app, 'PUT', '/api/vms/security/settings', { token, body: { require_two_factor: on } });
    expect((await require(admin.token, true)).status).toBe(403);
    const first = await require(owner.token, true);
    expect(first.status).toBe(422);
    expect(first.body.errors).toEqual({ require_two_factor: [TWO_FACTOR_OWNER_FIRST] });
    await turnOn(owner.token);

    const socket = connect(base, { token: admin.token });
    await connected(socket);
    const closed = new Promise((resolve) => socket.once('disconnect', resolve));
    expect((await require(owner.token, true)).body).toEqual({ message: 'success', data: { require_two_factor: true } });
    await closed;
    expect((await call(t.app, 'GET', '/api/vms/user', { token: admin.token })).status).toBe(401);
    expect((await call(t.app, 'GET', '/api/vms/user', { token: owner.token })).status).toBe(200);

    const gate = await login(admin.email, 'member-pass');
    expect(gate.body).toEqual({ message: 'success', two_factor_required: true, challenge: expect.any(String), setup_required: true });
    // The set-up challenge is no sign-in by itself.
    expect((await second(gate.body.challenge, '123456')).body.message).toBe(TWO_FACTOR_CHALLENGE_EXPIRED);
    const setup = await call(t.app, 'POST', '/api/vms/login/2fa/setup', { body: { challenge: gate.body.challenge } });
    const done = await call(t.app, 'POST', '/api/vms/login/2fa/enable', { body: { challenge: gate.body.challenge, code: codeOf(setup.body.data.secret) } });
    expect(done.status).toBe(200);
    expect(done.body.recovery_codes).toHaveLength(10);
    expect(done.body.user.email).toBe(admin.email);
    // While required, nobody turns it off.
    const off = await call(t.app, 'POST', '/api/vms/user/two-factor/disable', { token: done.body.token, body: { password: 'member-pass' } });
    expect(off.status).toBe(403);
    expect(off.body.message).toBe(TWO_FACTOR_REQUIRED_BY_TEAM);
  });
});
