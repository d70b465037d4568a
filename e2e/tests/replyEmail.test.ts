
import { afterAll, describe, expect, it } from 'vitest';
import { apiCall, base, createVisitor, eventually, integrationSnippet, registerOwner, visitorHistory, visitorSays } from '../support/api';
import { closeBrowser, newSession, visible } from '../support/browser';
import { mailsTo } from '../support/mail';

afterAll(closeBrowser);

// Issue 12 item 8: an agent's replies to a visitor who left an email and went away arrive as
// one email (delivered through the journeys' SMTP server); its link opens a hosted chat
// page in a fresh browser with the business's widget, the conversation restored, and the visitor
// writes on from there.

describe('reply email to an away visitor (issue 12 item 8)', () => {
  it('two agent replies make one email whose link reopens the chat in another browser, where the visitor writes on', async () => {
    const owner = await registerOwner('Rita Replies');
    const settings = await apiCall('POST', '/api/vms/chatwidget-settings', { token: owner.token, body: { name: 'Harbour Books', title: 'Ask us anything', color: '#2a6f4e' } });
    expect(settings.status).toBeLessThan(300);
    const { key } = await integrationSnippet(owner.token);
    const email = `reader-${Date.now().toString(36)}@example.com`;
    const visitor = await createVisitor(key, { name: 'Rhea Reader', email });
    await visitorSays(visitor, 'Do you have the new atlas in stock?');

    for (const text of ['Hello Rhea, let me check.', 'Yes, two copies are in stock.']) {
      const form = new FormData();
      form.set('visitor_id', visitor.id);
      form.set('message', text);
      expect((await apiCall('POST', '/api/vms/messages', { token: owner.token, form })).status).toBe(201);
    }
    const [mail] = await eventually(async () => {
      const found = await mailsTo(email);
      return found.length > 0 && found;
    }, 'the reply email', 20_000);
    await new Promise((r) => setTimeout(r, 3500));
    expect(await mailsTo(email)).toHaveLength(1);
    expect(mail).toContain('Hello Rhea, let me check.');
    expect(mail).toContain('Yes, two copies are in stock.');
    const link = /(http:\/\/[^\s"<>]+\/api\/chat\/[A-Za-z0-9._-]+)/.exec(mail!)?.[1];
    expect(link).toBeDefined();

    // A fresh browser (no stored visitor): the link's page restores the conversation and opens it.
    const { page, pageErrors, context } = await newSession();
    await page.goto(link!.replace(/^http:\/\/[^/]+/, base()));
    await visible(page.getByRole('heading', { name: 'Chat with Harbour Books' }));
    const panel = page.getByRole('dialog', { name: 'Harbour Books' });
    await visible(panel.getByText('Do you have the new atlas in stock?'), 15_000);
    await visible(panel.getByText('Yes, two copies are in stock.'));
    await panel.getByRole('textbox', { name: 'Type a message' }).fill('Please keep one for me.');
    await panel.getByRole('button', { name: 'Send', exact: true }).click();
    await eventually(async () => (await visitorHistory(visitor)).some((m) => m.message === 'Please keep one for me.'), 'the visitor message from the link page');
    // The link is gone from the address (the widget reports it to the agents); a reload still works.
    expect(new URL(page.url()).pathname).toBe(`/api/chat/${visitor.id}`);
    await page.reload();
    await visible(page.getByRole('dialog', { name: 'Harbour Books' }).getByText('Please keep one for me.'), 15_000);
    const pages = await apiCall<{ data: { id: string; current_page: string }[] }>('GET', '/api/vms/visitor', { token: owner.token });
    const seen = pages.body.data.find((v) => v.id === visitor.id);
    expect(seen?.current_page ?? '').not.toContain(link!.split('/').pop()!);
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
