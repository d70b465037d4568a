import { eq } from 'drizzle-orm';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { users, webhookEndpoints } from '../db/schema.js';
import { buildAccount, call } from '../test/factories.js';
import { createTestApp, testConfig, type TestApp } from '../test/harness.js';
import { SecretBox, SecretsKeyError, openSecretBox } from './secrets.js';

/**
 * TOTP and webhook signing secrets are sealed at rest (AES-256-GCM): the column never holds the
 * clear secret, sign-in with two-factor still works, clear secrets from before are sealed when
 * read and at start, and a server with another key refuses to start.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ OUTBOUND_ALLOW_PRIVATE: 'true', SECRETS_KEY: '' });
});
afterAll(() => t.close());

const codeOf = (secret: string, steps = 0) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + steps * 30_000 });
const storedTotp = async (id: number) => (await t.database.db.select({ s: users.totpSecret }).from(users).where(eq(users.id, id)))[0]!.s;

describe('SecretBox', () => {
  it('seals with a fresh IV each time, opens its own values, refuses a tampered value or another key’s', () => {
    const box = new SecretBox('k'.repeat(40));
    const a = box.seal('JBSWY3DPEHPK3PXP');
    expect(a).toMatch(/^enc:v1:[0-9a-f]{12}:/);
    expect(a).not.toContain('JBSWY3DPEHPK3PXP');
    expect(box.seal('JBSWY3DPEHPK3PXP')).not.toBe(a);
    expect(box.open(a)).toBe('JBSWY3DPEHPK3PXP');
    expect(box.open('JBSWY3DPEHPK3PXP')).toBe('JBSWY3DPEHPK3PXP'); // a clear value from before
    const parts = a.split(':');
    parts[4] = Buffer.from('XXXXXXXXXXXXXXXX').toString('base64url');
    expect(() => box.open(parts.join(':'))).toThrow(SecretsKeyError);
    expect(() => new SecretBox('m'.repeat(40)).open(a)).toThrow(/sealed with another key/);
  });
});

describe('two-factor secrets at rest', () => {
  it('the column holds only the sealed secret; enabling and signing in with a code still work', async () => {
    const owner = await buildAccount(t.app);
    const setup = await call(t.app, 'POST', '/api/vms/user/two-factor/setup', { token: owner.token });
    const secret = setup.body.data.secret as string;
    const stored = await storedTotp(owner.user.id);
    expect(stored).toMatch(/^enc:v1:/);
    expect(stored).not.toContain(secret);
    expect(t.app.secrets.open(stored!)).toBe(secret);
    expect((await call(t.app, 'POST', '/api/vms/user/two-factor/enable', { token: owner.token, body: { code: codeOf(secret) } })).status).toBe(200);
    const first = await call(t.app, 'POST', '/api/vms/login', { body: { email: owner.email, password: owner.password } });
    expect(first.body.two_factor_required).toBe(true);
    const done = await call(t.app, 'POST', '/api/vms/login/2fa', { body: { challenge: first.body.challenge, code: codeOf(secret, 1) } });
    expect(done.status).toBe(200);
    expect(done.body.user.email).toBe(owner.email);
    expect(await storedTotp(owner.user.id)).not.toContain(secret);
  });

  it('a clear secret left from before still signs in, and is sealed when used', async () => {
    const owner = await buildAccount(t.app);
    const secret = new Secret({ size: 20 }).base32;
    await t.database.db.update(users).set({ totpSecret: secret, totpEnabledAt: new Date() }).where(eq(users.id, owner.user.id));
    const first = await call(t.app, 'POST', '/api/vms/login', { body: { email: owner.email, password: owner.password } });
    const done = await call(t.app, 'POST', '/api/vms/login/2fa', { body: { challenge: first.body.challenge, code: codeOf(secret) } });
    expect(done.status).toBe(200);
    const stored = await storedTotp(owner.user.id);
    expect(stored).toMatch(/^enc:v1:/);
    expect(t.app.secrets.open(stored!)).toBe(secret);
  });
});

describe('webhook signing secrets at rest', () => {
  it('the endpoint’s column holds only the sealed secret shown once at creation', async () => {
    const owner = await buildAccount(t.app);
    const res = await call(t.app, 'POST', '/api/vms/webhooks', { token: owner.token, body: { url: 'https://127.0.0.1:9/hook', events: ['message.created'] } });
    expect(res.status).toBe(201);
    const [row] = await t.database.db.select({ secret: webhookEndpoints.secret }).from(webhookEndpoints).where(eq(webhookEndpoints.id, res.body.data.id));
    expect(row!.secret).toMatch(/^enc:v1:/);
    expect(row!.secret).not.toContain(res.body.data.secret);
    expect(t.app.secrets.open(row!.secret)).toBe(res.body.data.secret);
  });
});

describe('starting', () => {
  it('seals the clear secrets left in the database', async () => {
    const owner = await buildAccount(t.app);
    await t.database.db.update(users).set({ totpSecret: 'JBSWY3DPEHPK3PXP' }).where(eq(users.id, owner.user.id));
    const hook = await call(t.app, 'POST', '/api/vms/webhooks', { token: owner.token, body: { url: 'https://127.0.0.1:9/other', events: ['message.created'] } });
    await t.database.db.update(webhookEndpoints).set({ secret: 'clear-signing-secret' }).where(eq(webhookEndpoints.id, hook.body.data.id));
    await openSecretBox(t.config, t.database.db);
    expect(t.app.secrets.open((await storedTotp(owner.user.id))!)).toBe('JBSWY3DPEHPK3PXP');
    const [row] = await t.database.db.select({ secret: webhookEndpoints.secret }).from(webhookEndpoints).where(eq(webhookEndpoints.id, hook.body.data.id));
    expect(row!.secret).toMatch(/^enc:v1:/);
    expect(t.app.secrets.open(row!.secret)).toBe('clear-signing-secret');
  });

  it('a server with another key fails closed, naming SECRETS_KEY', async () => {
    const config = testConfig(t.dataDir, { SECRETS_KEY: 'another-key-another-key-another-key-0123' });
    await expect(buildApp({ config, database: t.database, logger: false })).rejects.toThrow(/SECRETS_KEY does not match/);
    // The same key (the data directory's file) starts.
    await expect(openSecretBox(t.config, t.database.db)).resolves.toBe(t.app.secrets);
  });

  it('the key file is made once, readable by its owner only; a short SECRETS_KEY is refused', async () => {
    const fs = await import('node:fs/promises');
    const stat = await fs.stat(`${t.dataDir}/secrets.key`);
    expect(stat.mode & 0o077).toBe(0);
    expect(() => testConfig(t.dataDir, { SECRETS_KEY: 'short' })).toThrow(/SECRETS_KEY: must be at least 32 characters/);
  });
});
