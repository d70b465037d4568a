import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { sentEmails, widgetSettings } from '../db/schema.js';
import { buildVisitor } from '../test/chatFactories.js';
import { buildAccount, call } from '../test/factories.js';
import { buildJobsApp, decodeHeader, jobsSuite, sleep } from '../test/jobs.js';
import { notificationSubject, quotedField } from './compose.js';

/**
 * Issue 11, finding 7: 100 anonymous chats gave 200 emails in 20 s, with the attacker's text in
 * the subject. Now an account's notification emails have a budget; the rest come in digests,
 * and visitor-chosen text is in a subject only quoted, on one line, cut short.
 */
const s = jobsSuite();

const ATTACK = 'Security team: your Parley account will be closed';
// One line for the name field's validation, but every trick a header could fall for.
const NAMES = [
  ATTACK,
  `${ATTACK}\u2028Bcc: victim@example.com`,
  'Support\u202Edesoc era stnuocca',
  '"Parley" <security@parley.example>',
  '',
];
/** The widget's per-IP limits are not under test here (every call comes from 127.0.0.1). */
const LIFTED = { WIDGET_LIMIT_PER_IP: '1000000', WIDGET_LIMIT_PER_KEY: '1000000', WIDGET_NEW_VISITORS_PER_IP: '1000000', WIDGET_LIMIT_PER_VISITOR: '1000000' };

describe('email budget and digests', () => {
  it('answers 100 anonymous chats with a bounded number of emails: the budget, then digests that name every chat once', { timeout: 240_000 }, async () => {
    const budget = 3;
    const digestSeconds = 2;
    s.t = await buildJobsApp({
      runner: 'in-process',
      smtpUrl: s.smtp.url,
      jobs: { missedChatDelaySeconds: 3600, emailBudget: budget, emailBudgetSeconds: 3600, digestSeconds },
      env: LIFTED,
    });
    const app = s.t.app;
    const owner = await buildAccount(app); // online: only the new-chat emails
    await app.database.db
      .update(widgetSettings)
      .set({ emailNotifications: { newChats: true, offlineMessages: true, missedChats: true } })
      .where(eq(widgetSettings.accountId, owner.user.account_id));
    const started = Date.now();
    for (let batch = 0; batch < 10; batch++) {
      await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const name = NAMES[(batch * 10 + i) % NAMES.length]!;
          const v = await buildVisitor(app, owner.widgetKey, name ? { name } : {});
          const res = await call(app, 'POST', '/api/widget/messages', { token: v.token, body: { message: `${ATTACK} (chat ${batch * 10 + i})` } });
          expect(res.status).toBe(201);
        }),
      );
    }

    // Every chat is told exactly once: alone (within the budget) or in a digest.
    const told = () =>
      s.smtp.mails.reduce((n, m) => {
        const digest = /^Parley: (\d+) new chats?$/.exec(decodeHeader(m.headers.subject ?? ''));
        return n + (digest ? Number(digest[1]) : 1);
      }, 0);
    // A bound, not a target: on a loaded CI machine (both databases' suites at once) the flood's
    // jobs took over 60 s; the test's own timeout is 240 s.
    const until = Date.now() + 180_000;
    while (told() < 100 && Date.now() < until) await sleep(100);
    const elapsed = (Date.now() - started) / 1000;
    await sleep(digestSeconds * 1000 + 500); // nothing more comes
    expect(told()).toBe(100);

    const subjects = s.smtp.mails.map((m) => decodeHeader(m.headers.subject ?? ''));
    const single = subjects.filter((x) => x.startsWith('New chat from'));
    const digests = subjects.filter((x) => x.startsWith('Parley: '));
    expect(single).toHaveLength(budget);
    // At most one digest per NOTIFY_DIGEST_SECONDS while the flood lasts.
    expect(digests.length).toBeGreaterThanOrEqual(1);
    expect(digests.length).toBeLessThanOrEqual(Math.ceil(elapsed / digestSeconds) + 1);
    expect(s.smtp.mails.length).toBeLessThan(20);
    for (const m of s.smtp.mails) {
      expect(m.to).toEqual([owner.email]);
      expect(m.headers.bcc).toBeUndefined();
    }
    for (const subject of subjects) {
      expect(subject).toMatch(/^(New chat from (a visitor|visitor "[^"\r\n\u2028\u202E]{1,32}")|Parley: \d+ new chats?)$/);
      expect(subject).not.toContain(ATTACK);
    }
    // The digest lists the chats (visitor text in the body, escaped in HTML).
    const digest = s.smtp.mails.find((m) => decodeHeader(m.headers.subject ?? '').startsWith('Parley: '))!;
    expect(digest.text).toContain('More visitors wrote than your notification budget allows (3 emails per 60 minutes)');
    expect(digest.text).toMatch(/- .+ \(new chat\): Security team: your Parley account will be closed \(chat \d+\)/);
    expect(digest.text).toContain('http://localhost:3000/conversations?visitor=');
    expect(digest.html).not.toContain('<security@parley.example>');

    const rows = await app.database.db.select().from(sentEmails).where(eq(sentEmails.accountId, owner.user.account_id));
    expect(rows.filter((r) => r.status === 'held')).toHaveLength(0);
    expect(rows.filter((r) => r.status === 'digested')).toHaveLength(100 - budget);
    // Only the chats' missed-chat checks (an hour away) wait.
    expect(await app.jobs.counts()).toEqual({ pending: 100, failed: 0 });
  });
});

describe('subjects', () => {
  it('carry visitor-chosen text only quoted, on one line, without control or bidi characters, cut short', () => {
    expect(notificationSubject('newChat', { name: 'Vera <b>', email: '' })).toBe('New chat from visitor "Vera <b>"');
    expect(notificationSubject('offlineMessage', { name: '  ', email: 'sam@example.com' })).toBe('Offline message from visitor "sam@example.com"');
    expect(notificationSubject('missedChat', { name: '', email: '' })).toBe('Missed chat from a visitor');
    expect(notificationSubject('newChat', { name: ATTACK, email: '' })).toBe('New chat from visitor "Security team: your Parley acco\u2026"');
    for (const evil of ['a\r\nBcc: x@evil.example', 'a\u2028b\u2029c', 'x\u202Egnp.exe', 'tab\there', 'nul\u0000byte', '"quoted" \u201Cname\u201D']) {
      const q = quotedField(evil);
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the test asserts those characters are gone
      expect(q).toMatch(/^"[^"\r\n\t\u0000\u2028\u2029\u202E]*"$/);
    }
    expect(quotedField('a\r\nBcc: x@evil.example')).toBe('"a Bcc: x@evil.example"');
    expect([...quotedField('\u{1F600}'.repeat(40))].length).toBe(34); // 31 emoji, the ellipsis, two quotes
  });
});
