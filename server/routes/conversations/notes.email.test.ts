import { eq } from 'drizzle-orm';
import { describe, expect, it, vi } from 'vitest';
import { widgetSettings } from '../../db/schema.js';
import { buildVisitor, type TestVisitor } from '../../test/chatFactories.js';
import { buildAccount, call, everyoneOffline, type TestOwner } from '../../test/factories.js';
import { buildJobsApp, decodeHeader, jobsSuite, sleep } from '../../test/jobs.js';

// Private notes never leave in an email (issue 16): not in the reply email to an away visitor,
// not in the owner's notification that the visitor may be answered from (Reply-To).
vi.setConfig({ testTimeout: 90_000 });

describe('notes stay out of emails', () => {
  const s = jobsSuite();
  const setup = async (env: Record<string, string> = {}) => {
    s.t = await buildJobsApp({ runner: 'in-process', smtpUrl: s.smtp.url, jobs: { missedChatDelaySeconds: 3600 }, env });
    const owner = await buildAccount(s.t.app, { name: 'Agnes Agent' });
    return { app: s.t.app, owner };
  };
  const visitorSays = async (owner: TestOwner, text: string, v?: TestVisitor) => {
    const visitor = v ?? (await buildVisitor(s.t!.app, owner.widgetKey, { name: 'Vera', email: 'vera@example.com' }));
    expect((await call(s.t!.app, 'POST', '/api/widget/messages', { token: visitor.token, body: { message: text } })).status).toBe(201);
    return visitor;
  };
  const note = async (owner: TestOwner, v: TestVisitor, text: string) =>
    expect((await call(s.t!.app, 'POST', `/api/vms/conversations/${v.id}/notes`, { token: owner.token, body: { message: text } })).status).toBe(201);

  it("leaves notes out of the reply email to an away visitor", async () => {
    const { app, owner } = await setup({ VISITOR_REPLY_BATCH_SECONDS: '1' });
    const v = await visitorSays(owner, 'Do you ship to Oslo?');
    await s.smtp.waitFor(1); // the owner's new-chat email
    await note(owner, v, 'SECRET: customer owes us money');
    expect((await call(app, 'POST', '/api/vms/messages', { token: owner.token, body: { visitor_id: v.id, message: 'Yes, we ship to Oslo.' } })).status).toBe(201);
    await note(owner, v, 'SECRET: second note after the reply');
    const until = Date.now() + 20_000;
    while (!s.smtp.mails.some((m) => m.to.includes('vera@example.com'))) {
      if (Date.now() > until) throw new Error('no reply email to the visitor');
      await sleep(50);
    }
    await sleep(300);
    const toVisitor = s.smtp.mails.filter((m) => m.to.includes('vera@example.com'));
    expect(toVisitor).toHaveLength(1);
    expect(toVisitor[0]!.text).toContain('Yes, we ship to Oslo.');
    for (const m of s.smtp.mails) {
      expect(m.text).not.toContain('SECRET');
      expect(m.html).not.toContain('SECRET');
    }
  });

  it("leaves notes out of the owner's offline-message email that replies to the visitor", async () => {
    const { app, owner } = await setup();
    await app.database.db
      .update(widgetSettings)
      .set({ emailNotifications: { newChats: false, offlineMessages: true, missedChats: false } })
      .where(eq(widgetSettings.accountId, owner.user.account_id));
    const v = await visitorSays(owner, 'Hello?');
    await s.smtp.waitFor(0);
    await note(owner, v, 'SECRET: do not tell the visitor');
    // The owner read it (unread 0), then left: the visitor's next message is an offline message.
    await call(app, 'GET', `/api/vms/messages/${v.id}`, { token: owner.token });
    s.smtp.mails.length = 0;
    await everyoneOffline(app, owner.user.account_id);
    await visitorSays(owner, 'Still there?', v);
    const [mail] = await s.smtp.waitFor(1);
    expect(decodeHeader(mail!.headers.subject!)).toContain('Offline message');
    expect(mail!.headers['reply-to']).toBe('vera@example.com');
    expect(mail!.text).toContain('Vera: Still there?');
    expect(mail!.text).not.toContain('SECRET');
    expect(mail!.html).not.toContain('SECRET');
  });
});
