import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailDir } from '../../services/mail.js';
import { buildAccount, call } from '../../test/factories.js';
import { createTestApp, type TestApp } from '../../test/harness.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ EMAIL_CHANGE_LIMIT: '3', PASSWORD_CHECK_LIMIT: '5' });
});
afterAll(() => t.close());

async function mailTo(address: string): Promise<string[]> {
  const dir = mailDir(t.dataDir);
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  const texts = await Promise.all(names.map((n) => fs.readFile(path.join(dir, n), 'utf8')));
  return texts.filter((text) => text.toLowerCase().includes(`to: ${address.toLowerCase()}`));
}

async function waitForMail(address: string, ms = 15_000): Promise<string> {
  const until = Date.now() + ms;
  for (;;) {
    const [mail] = await mailTo(address);
    if (mail) return mail;
    if (Date.now() > until) throw new Error(`no email to ${address}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The confirmation link in an .eml (quoted-printable soft breaks undone). */
const linkIn = (eml: string) => /https?:\/\/\S+?\/api\/vms\/user\/email\/confirm\?token=[A-Za-z0-9_-]{43}/.exec(eml.replace(/=\r?\n/g, '').replace(/=3D/g, '='))?.[0];

describe('PUT /api/vms/user/update is no email oracle', () => {
  it('answers a taken email exactly like a free one, changes neither at once, and mails only the free address', async () => {
    const prober = await buildAccount(t.app);
    const victim = await buildAccount(t.app);
    const update = (email: string) => call(t.app, 'PUT', '/api/vms/user/update', { token: prober.token, body: { name: 'Pro Ber', email } });
    const taken = await update(victim.email);
    const free = await update('fresh-address@example.com');
    expect(taken.status).toBe(free.status);
    expect(Object.keys(taken.body).sort()).toEqual(Object.keys(free.body).sort());
    expect(taken.body.notice.replace(victim.email, 'X')).toBe(free.body.notice.replace('fresh-address@example.com', 'X'));
    expect(JSON.stringify(taken.body)).not.toMatch(/taken|already/i);
    expect(taken.body.data.email).toBe(prober.email);
    expect((await call(t.app, 'GET', '/api/vms/user', { token: prober.token })).body).toMatchObject({ name: 'Pro Ber', email: prober.email });

    // Only the owner of the free address can finish the change.
    const mail = await waitForMail('fresh-address@example.com');
    expect(mail).toContain('Subject: Confirm your new Parley sign-in email');
    await new Promise((r) => setTimeout(r, 1500));
    // The victim's only email is their own sign-up's verification link (issue 14), never the change.
    expect((await mailTo(victim.email)).filter((m) => !m.includes('Subject: Verify your Parley email address'))).toHaveLength(0);
    const link = new URL(linkIn(mail)!);
    const opened = await t.app.inject({ method: 'GET', url: `${link.pathname}${link.search}` });
    expect(opened.statusCode).toBe(302);
    expect(opened.headers.location).toBe('/settings?email_change=confirmed');
    expect((await call(t.app, 'GET', '/api/vms/user', { token: prober.token })).body.email).toBe('fresh-address@example.com');
    // A link works once.
    expect((await t.app.inject({ method: 'GET', url: `${link.pathname}${link.search}` })).headers.location).toBe('/settings?email_change=invalid');
  });

  it('limits email change requests per user: 429 in the envelope', async () => {
    const owner = await buildAccount(t.app);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await call(t.app, 'PUT', '/api/vms/user/update', { token: owner.token, body: { name: 'Some One', email: `probe-${i}@example.com` } });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    // Changing the name alone is not limited.
    expect((await call(t.app, 'PUT', '/api/vms/user/update', { token: owner.token, body: { name: 'Other Name', email: owner.email } })).status).toBe(200);
  });
});

describe('PUT /api/vms/password/update limits guessing the current password', () => {
  it('after 5 wrong current passwords even the right one waits (429)', async () => {
    const owner = await buildAccount(t.app);
    const change = (current: string) => call(t.app, 'PUT', '/api/vms/password/update', { token: owner.token, body: { current, new: 'n3w-pass', confirm: 'n3w-pass' } });
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await change(`guess-${i}`)).status);
    expect(statuses).toEqual([422, 422, 422, 422, 422, 429, 429]);
    const right = await change(owner.password);
    expect(right.status).toBe(429);
    expect(right.body).toEqual({ message: 'Too many attempts. Please try again later.', error: 'Too many attempts. Please try again later.', code: 'rate_limited' });
    // Another user is not affected.
    const other = await buildAccount(t.app);
    expect((await call(t.app, 'PUT', '/api/vms/password/update', { token: other.token, body: { current: other.password, new: 'n3w-pass', confirm: 'n3w-pass' } })).status).toBe(200);
  });
});
