import fs from 'node:fs/promises';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sentEmails } from '../../db/schema.js';
import { mailDir } from '../../services/mail.js';
import { buildAccount, type TestOwner } from '../../test/factories.js';
import { createTestApp, type TestApp } from '../../test/harness.js';

/**
 * Finding 8: ten wrong passwords from one IP locked the owner out from every IP for 15 minutes.
 * Attempts come from distinct 127.0.0.x addresses, as real clients do.
 */
let t: TestApp;
beforeAll(async () => {
  // The product's defaults: 5 failures per IP + email, 10 per email from all IPs.
  t = await createTestApp({ LOGIN_LIMIT_PER_EMAIL: '10', LOGIN_LIMIT_PER_IP_EMAIL: '5' });
});
afterAll(() => t.close());

async function login(owner: Pick<TestOwner, 'email'>, password: string, ip: string, cookie?: string) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/vms/login',
    remoteAddress: ip,
    headers: cookie ? { cookie } : {},
    payload: { email: owner.email, password },
  });
  const setCookie = res.headers['set-cookie'];
  return { status: res.statusCode, body: res.json(), cookie: (Array.isArray(setCookie) ? setCookie[0] : setCookie)?.split(';')[0] };
}

async function mailTo(address: string): Promise<string[]> {
  const dir = mailDir(t.dataDir);
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  const texts = await Promise.all(names.map((n) => fs.readFile(path.join(dir, n), 'utf8')));
  return texts.filter((text) => text.toLowerCase().includes(`to: ${address.toLowerCase()}`));
}

async function waitFor<T>(probe: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('sign-in throttling slows the attacker, not the owner', () => {
  it('an IP failing 12 times is throttled, while the owner signs in from another IP at once', async () => {
    const owner = await buildAccount(t.app);
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await login(owner, `wrong-${i}`, '127.0.0.66')).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429, 429, 429, 429, 429]);
    // The attacker's IP stays throttled even with the right password.
    expect((await login(owner, owner.password, '127.0.0.66')).status).toBe(429);
    // The owner, from their own IP, is not.
    const mine = await login(owner, owner.password, '127.0.0.10');
    expect(mine.status).toBe(200);
    expect(mine.body.token).toBeTruthy();
  });

  it('many IPs failing lock the email to unknown browsers; the right password on a known browser lifts it', async () => {
    const owner = await buildAccount(t.app);
    const first = await login(owner, owner.password, '127.0.0.20');
    expect(first.status).toBe(200);
    expect(first.cookie).toMatch(/^parley_device=[A-Za-z0-9_-]{43}$/);
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await login(owner, `wrong-${i}`, `127.0.0.${100 + i}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 401, 401, 401, 401, 429, 429]);
    // A browser that never signed in (an attacker with the stolen password, or a new device) waits.
    expect((await login(owner, owner.password, '127.0.0.21')).status).toBe(429);
    // The owner's browser gets through, from any IP, and lifts the lock.
    expect((await login(owner, owner.password, '127.0.0.22', first.cookie)).status).toBe(200);
    expect((await login(owner, owner.password, '127.0.0.23')).status).toBe(200);
    // A device cookie of another user does not help.
    const stranger = await buildAccount(t.app);
    const theirs = await login(stranger, stranger.password, '127.0.0.30');
    for (let i = 0; i < 10; i++) await login(owner, `again-${i}`, `127.0.0.${150 + i}`);
    expect((await login(owner, owner.password, '127.0.0.31', theirs.cookie)).status).toBe(429);
  });

  it('emails the owner once when the account is under attack, however long it goes on', async () => {
    const owner = await buildAccount(t.app);
    for (let i = 0; i < 30; i++) await login(owner, `wrong-${i}`, `127.0.1.${1 + (i % 6)}`);
    const [mail] = await waitFor(async () => {
      const found = await mailTo(owner.email);
      return found.length > 0 ? found : undefined;
    });
    expect(mail).toContain('Subject: Someone is trying to sign in to your Parley account');
    // Give the queue time to send any second email, then count.
    await new Promise((r) => setTimeout(r, 2500));
    expect(await mailTo(owner.email)).toHaveLength(1);
    const rows = await t.database.db.select().from(sentEmails).where(eq(sentEmails.recipient, owner.email));
    expect(rows.map((r) => [r.kind, r.status])).toEqual([['loginAttack', 'sent']]);
  });

  it('a few typos by the owner send no email', async () => {
    const owner = await buildAccount(t.app);
    for (let i = 0; i < 3; i++) expect((await login(owner, `typo-${i}`, '127.0.0.40')).status).toBe(401);
    expect((await login(owner, owner.password, '127.0.0.40')).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await mailTo(owner.email)).toHaveLength(0);
  });
});
