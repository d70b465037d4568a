import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMAIL_NOT_VERIFIED, FORGOT_PASSWORD_NOTICE, RESET_LINK_INVALID } from '@parley/shared';
import { userLinks } from '../../db/schema.js';
import { sweepExpiredSessions } from '../../services/sessions.js';
import { buildAccount, buildMember, call } from '../../test/factories.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { type ReceivedMail, type TestSmtp, startSmtp } from '../../test/jobs.js';
import { connect, connected, listen } from '../../test/sockets.js';

let t: TestApp;
let smtp: TestSmtp;
let base: string;
beforeAll(async () => {
  smtp = await startSmtp();
  t = await createTestApp({ EMAIL_VERIFICATION: 'true', SMTP_URL: smtp.url, PASSWORD_RESET_LIMIT: '3', PASSWORD_RESET_LIMIT_PER_IP: '1000' });
  base = await listen(t.app);
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

async function mailTo(address: string, subject: string, ms = 10_000): Promise<ReceivedMail> {
  const until = Date.now() + ms;
  for (;;) {
    const mail = smtp.mails.find((m) => m.to.includes(address.toLowerCase()) && m.headers.subject === subject);
    if (mail) return mail;
    if (Date.now() > until) throw new Error(`no "${subject}" email to ${address}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
const tokenIn = (mail: ReceivedMail, path: string) => new RegExp(`${path.replace('?', '\\?')}token=([A-Za-z0-9_-]{43})`).exec(mail.text)?.[1];
const forgot = (email: string) => call(t.app, 'POST', '/api/vms/password/forgot', { body: { email } });
const reset = (token: string, password: string) => call(t.app, 'POST', '/api/vms/password/reset', { body: { token, password, password_confirmation: password } });
const login = (email: string, password: string) => call(t.app, 'POST', '/api/vms/login', { body: { email, password } });

describe('forgot password', () => {
  it('mails a single-use link; using it sets the password and signs out every session, live sockets included', async () => {
    const owner = await buildAccount(t.app);
    const second = (await login(owner.email, owner.password)).body.token as string;
    const socket = connect(base, { token: second });
    await connected(socket);
    const closed = new Promise((resolve) => socket.once('disconnect', resolve));

    const asked = await forgot(owner.email.toUpperCase());
    expect(asked.status).toBe(200);
    expect(asked.body).toEqual({ message: 'success', notice: FORGOT_PASSWORD_NOTICE });
    const mail = await mailTo(owner.email, 'Reset your Parley password');
    expect(mail.text).toContain('30 minutes');
    const token = tokenIn(mail, '/reset-password?')!;
    expect(token).toBeDefined();
    // Only the hash is stored.
    expect(JSON.stringify(await t.app.db.select().from(userLinks))).not.toContain(token);

    expect((await reset(token, 'N3w-password!')).body).toEqual({ message: 'success' });
    await closed;
    for (const old of [owner.token, second]) expect((await call(t.app, 'GET', '/api/vms/user', { token: old })).status).toBe(401);
    expect((await login(owner.email, owner.password)).status).toBe(401);
    expect((await login(owner.email, 'N3w-password!')).status).toBe(200);

    // The link works once.
    const again = await reset(token, 'An0ther-password!');
    expect(again.status).toBe(422);
    expect(again.body).toMatchObject({ message: RESET_LINK_INVALID, errors: { token: [RESET_LINK_INVALID] } });
    expect((await login(owner.email, 'N3w-password!')).status).toBe(200);

    const entries = (await call(t.app, 'GET', '/api/vms/audit-log?action=auth.password_reset', { token: (await login(owner.email, 'N3w-password!')).body.token })).body.data;
    expect(entries).toHaveLength(1);
  });

  it('answers the same for an unknown email and sends nothing', async () => {
    const sent = smtp.mails.length;
    const res = await forgot('nobody-here@example.com');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'success', notice: FORGOT_PASSWORD_NOTICE });
    await new Promise((r) => setTimeout(r, 1000));
    expect(smtp.mails.slice(sent).filter((m) => m.to.includes('nobody-here@example.com'))).toEqual([]);
  });

  it('follows the registration rules for the new password, spends nothing on bad input, and refuses an expired link', async () => {
    const member = await buildMember(t.app, await buildAccount(t.app), 'Agent');
    await forgot(member.email);
    const first = tokenIn(await mailTo(member.email, 'Reset your Parley password'), '/reset-password?')!;
    const short = await reset(first, 'short');
    expect(short.status).toBe(422);
    expect(short.body.errors).toEqual({ password: ['Password must be at least 8 characters'] });
    const mismatch = await call(t.app, 'POST', '/api/vms/password/reset', { body: { token: first, password: 'L0ng-enough!', password_confirmation: 'other' } });
    expect(mismatch.body.errors).toEqual({ password_confirmation: ['Passwords do not match'] });
    // Bad input spent nothing: the link still works, until it expires.
    await t.app.db.update(userLinks).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(userLinks.userId, member.id));
    expect((await reset(first, 'L0ng-enough!')).body.message).toBe(RESET_LINK_INVALID);
    // The expiry sweep removes the dead link's row.
    await sweepExpiredSessions(t.app);
    expect(await t.app.db.select().from(userLinks).where(eq(userLinks.userId, member.id))).toEqual([]);
    expect((await login(member.email, 'member-pass')).status).toBe(200);
  });

  it('is rate limited per email with 429 in the envelope', async () => {
    const owner = await buildAccount(t.app);
    for (let i = 0; i < 3; i++) expect((await forgot(owner.email)).status).toBe(200);
    const limited = await forgot(owner.email);
    expect(limited.status).toBe(429);
    expect(limited.body.message).toBe(limited.body.error);
    // An unknown email is limited exactly the same way: the limit reveals nothing.
    for (let i = 0; i < 3; i++) await forgot('ghost-limit@example.com');
    expect((await forgot('ghost-limit@example.com')).status).toBe(429);
  });
});

describe('email verification of new owners', () => {
  it('mails new owners a link; until it is opened the account works but checkout answers 403', async () => {
    const owner = await buildAccount(t.app, { verified: false });
    expect((await call(t.app, 'GET', '/api/vms/user', { token: owner.token })).status).toBe(200);
    const pay = await call(t.app, 'POST', '/api/initialize-payment', { token: owner.token, body: { plan_id: 2 } });
    expect(pay.status).toBe(403);
    expect(pay.body).toEqual({ message: EMAIL_NOT_VERIFIED, error: EMAIL_NOT_VERIFIED });

    const mail = await mailTo(owner.email, 'Verify your Parley email address');
    const token = tokenIn(mail, '/api/vms/user/email/verify?')!;
    const opened = await t.app.inject({ method: 'GET', url: `/api/vms/user/email/verify?token=${token}` });
    expect(opened.statusCode).toBe(302);
    expect(opened.headers.location).toBe('/settings/security?email_verified=confirmed');
    expect((await t.app.inject({ method: 'GET', url: `/api/vms/user/email/verify?token=${token}` })).headers.location).toBe('/settings/security?email_verified=invalid');
    const paid = await call(t.app, 'POST', '/api/initialize-payment', { token: owner.token, body: { plan_id: 2 } });
    expect(paid.status).toBe(200);
    expect(paid.body.status).toBe('success');
  });

  it('resends a link on request, only while unverified', async () => {
    const owner = await buildAccount(t.app, { verified: false });
    await mailTo(owner.email, 'Verify your Parley email address');
    const res = await call(t.app, 'POST', '/api/vms/user/email/verify/resend', { token: owner.token });
    expect(res.body).toEqual({ message: 'success', email_verified: false });
    const until = Date.now() + 10_000;
    while (smtp.mails.filter((m) => m.to.includes(owner.email.toLowerCase())).length < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    const links = smtp.mails.filter((m) => m.to.includes(owner.email.toLowerCase())).map((m) => tokenIn(m, '/api/vms/user/email/verify?'));
    expect(links).toHaveLength(2);
    // The first link was replaced by the second.
    expect((await t.app.inject({ method: 'GET', url: `/api/vms/user/email/verify?token=${links[0]}` })).headers.location).toContain('invalid');
    expect((await t.app.inject({ method: 'GET', url: `/api/vms/user/email/verify?token=${links[1]}` })).headers.location).toContain('confirmed');
    expect((await call(t.app, 'POST', '/api/vms/user/email/verify/resend', { token: owner.token })).body.email_verified).toBe(true);
  });
});
