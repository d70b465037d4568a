import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { EVENTS, STARTER_MONTHLY_CHATS } from '@parley/shared';
import { monthKey } from '../billing/limits.js';
import { conversations, sentEmails, subscriptions, visitors } from '../db/schema.js';
import { hashToken, newToken } from '../services/secrets.js';
import { buildVisitor } from '../test/chatFactories.js';
import { buildAccount, call, type TestOwner } from '../test/factories.js';
import {
  buildJobsApp,
  decodeHeader,
  jobsSuite,
  type RunnerKind,
  sleep,
  uniquePrefix,
} from '../test/jobs.js';
import { connect, connected, emitAck, listen } from '../test/sockets.js';
import { composeChatLimitEmail } from './chatLimit.js';

const month = () => monthKey(new Date());
const monthName = () => new Date().toLocaleString('en-US', { timeZone: 'UTC', month: 'long', year: 'numeric' });

describe.each<RunnerKind>(['in-process', 'bullmq'])('chat limit notice (%s runner)', (runner) => {
const s = jobsSuite();

  /** A Starter account (trial over) with this month's chats used up. */
  async function starterAtLimit(name = 'Ola <b>& Co</b>'): Promise<TestOwner> {
    s.t = await buildJobsApp({ runner, smtpUrl: s.smtp.url, jobs: { missedChatDelaySeconds: 3600, queuePrefix: uniquePrefix() } });
    const owner = await buildAccount(s.t.app, { name });
    const accountId = owner.user.account_id;
    const db = s.t.app.database.db;
    await db.update(subscriptions).set({ expiryDate: new Date(Date.now() - 86_400_000) }).where(eq(subscriptions.accountId, accountId));
    const rows = await db
      .insert(visitors)
      .values(Array.from({ length: STARTER_MONTHLY_CHATS }, () => ({ accountId, tokenHash: hashToken(newToken()) })))
      .returning({ id: visitors.id });
    await db.insert(conversations).values(rows.map((v) => ({ accountId, visitorId: v.id, lastMessageAt: new Date() })));
    return owner;
  }

  async function refusedVisitor(owner: TestOwner) {
    const v = await buildVisitor(s.t!.app, owner.widgetKey);
    const res = await call(s.t!.app, 'POST', '/api/widget/messages', { token: v.token, body: { message: 'hello?' } });
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('This account has reached its monthly chat limit');
    return v;
  }

  it('emails the owner once this month, however many visitors are refused, with an escaped name and the upgrade link', async () => {
    const owner = await starterAtLimit();
    await Promise.all([refusedVisitor(owner), refusedVisitor(owner), refusedVisitor(owner)]);
    const [mail] = await s.smtp.waitFor(1);
    await refusedVisitor(owner); // after the email went out
    await sleep(800);
    expect(s.smtp.mails).toHaveLength(1);
    expect(mail!.to).toEqual([owner.email]);
    expect(decodeHeader(mail!.headers.subject!)).toBe(`You've reached the Starter plan's 100 chats for ${monthName()}`);
    expect(mail!.text).toContain('Hello Ola <b>& Co</b>,');
    expect(mail!.text).toContain('New visitors now see the offline form');
    expect(mail!.text).toContain('Upgrade to Professional for unlimited chats: http://localhost:3000/subscription');
    expect(mail!.html).toContain('Hello Ola &lt;b&gt;&amp; Co&lt;/b&gt;,');
    expect(mail!.html).not.toContain('<b>');
    expect(mail!.html).toContain('href="http://localhost:3000/subscription"');
    const rows = await s.t!.app.database.db.select().from(sentEmails).where(eq(sentEmails.accountId, owner.user.account_id));
    expect(rows.map((r) => ({ key: r.key, kind: r.kind, status: r.status, conversationId: r.conversationId }))).toEqual([
      { key: `chatLimit:${owner.user.account_id}:${month()}`, kind: 'chatLimit', status: 'sent', conversationId: null },
    ]);
    expect(await s.t!.app.jobs.counts()).toEqual({ pending: 0, failed: 0 });
  });

  it('tells the owner when the refusal comes through the socket too, and a notice of last month does not count', async () => {
    const owner = await starterAtLimit('Sol');
    const accountId = owner.user.account_id;
    // Last month's notice went out: this month still gets its own.
    const last = new Date();
    last.setUTCDate(1);
    last.setUTCMonth(last.getUTCMonth() - 1);
    await s.t!.app.database.db
      .insert(sentEmails)
      .values({ key: `chatLimit:${accountId}:${monthKey(last)}`, accountId, kind: 'chatLimit', status: 'sent', recipient: owner.email, sentAt: last });
    const base = await listen(s.t!.app);
    const v = await buildVisitor(s.t!.app, owner.widgetKey);
    const socket = connect(base, { widget_key: owner.widgetKey, visitor_token: v.token });
    try {
      await connected(socket);
      const ack = await emitAck(socket, EVENTS.messageSend, { message: 'hi', client_id: 'limit-1' });
      expect(ack).toMatchObject({ ok: false, status: 403, message: 'This account has reached its monthly chat limit' });
    } finally {
      socket.close();
    }
    const [mail] = await s.smtp.waitFor(1);
    expect(decodeHeader(mail!.headers.subject!)).toContain(monthName());
    await sleep(300);
    expect(s.smtp.mails).toHaveLength(1);
  });

  it('sends nothing when the account may chat again by the time the job runs (upgraded)', async () => {
    const owner = await starterAtLimit();
    // In the trial again (as if upgraded): the job finds no reason to tell.
    await s.t!.app.database.db.update(subscriptions).set({ expiryDate: new Date(Date.now() + 86_400_000) }).where(eq(subscriptions.accountId, owner.user.account_id));
    await s.t!.app.jobs.enqueue('notify.chatLimit', { accountId: owner.user.account_id, month: month() });
    const until = Date.now() + 5000;
    while ((await s.t!.app.jobs.counts()).pending > 0 && Date.now() < until) await sleep(50);
    await sleep(200);
    expect(s.smtp.mails).toHaveLength(0);
  });
});

describe('composeChatLimitEmail', () => {
  it('names the month and the day the count starts again', () => {
    const mail = composeChatLimitEmail({ to: 'o@example.com', ownerName: ' ', month: '2025-12', link: 'https://x.example/subscription?a=1&b=2' });
    expect(mail.subject).toBe("You've reached the Starter plan's 100 chats for December 2025");
    expect(mail.text).toContain('Hello there,');
    expect(mail.text).toContain('The count starts again on January 1, 2026 (UTC).');
    expect(mail.html).toContain('href="https://x.example/subscription?a=1&amp;b=2"');
  });
});
