import { afterAll, describe, expect, it } from 'vitest';
import { base, createVisitor, deliveryAcks, eventually, integrationSnippet, registerOwner, visitorHistory, visitorSays } from '../support/api';
import { closeBrowser, newSession, visible } from '../support/browser';
import { pngFile } from '../support/png';

afterAll(closeBrowser);

describe('live message center (journey 3)', () => {
  it('shows visitor messages within a second without a reload; the agent replies with text and an image', async () => {
    const owner = await registerOwner('Mia Message');
    const { key } = await integrationSnippet(owner.token);
    const known = await createVisitor(key, { name: 'Victor Visitor', email: 'victor@example.com' });
    await visitorSays(known, 'Hello, is anyone there?');

    const { page, pageErrors } = await newSession({ token: owner.token });
    await page.goto(`${base()}/conversations`);
    const list = page.getByRole('list', { name: 'Conversation list' });
    await visible(list.getByRole('button', { name: /Victor Visitor/ }));
    // The subtitle says when the live socket is up.
    await visible(page.getByText('Live: new messages appear as they arrive'));
    await list.getByRole('button', { name: /Victor Visitor/ }).click();
    const chat = page.getByRole('region', { name: 'Chat with Victor Visitor' });
    const log = chat.getByRole('log', { name: 'Messages' });
    await visible(log.getByText('Hello, is anyone there?'));

    // A new message in the open conversation: on screen within 1 s, no reload.
    const navigations: string[] = [];
    page.on('framenavigated', (f) => f === page.mainFrame() && navigations.push(f.url()));
    await visitorSays(known, 'I have a question about pricing');
    const t0 = Date.now();
    await visible(log.getByText('I have a question about pricing'), 1000);
    // The console acknowledged the pushed message on receipt: the server timed its delivery.
    await eventually(async () => (await deliveryAcks('console')) > 0, 'the console delivery ack in /metrics');
    const openConversationMs = Date.now() - t0;

    // A brand-new visitor's first message: a new conversation in the list within 1 s.
    const fresh = await createVisitor(key, { name: 'Nina Newcomer' });
    await visitorSays(fresh, 'First time here!');
    const t1 = Date.now();
    await visible(list.getByRole('button', { name: /Nina Newcomer/ }), 1000);
    const newConversationMs = Date.now() - t1;
    expect(navigations).toEqual([]);
    expect(openConversationMs).toBeLessThanOrEqual(1000);
    expect(newConversationMs).toBeLessThanOrEqual(1000);

    // The agent replies with text...
    await chat.getByRole('textbox', { name: 'Message' }).fill('Hi Victor, happy to help!');
    await chat.getByRole('button', { name: 'Send message' }).click();
    await visible(log.getByText('Hi Victor, happy to help!'));
    // ...then with an image, through the attach button's file chooser.
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), chat.getByRole('button', { name: 'Attach image' }).click()]);
    await chooser.setFiles(pngFile('reply.png'));
    await visible(chat.getByRole('button', { name: 'Remove' }));
    await chat.getByRole('button', { name: 'Send message' }).click();
    // The stored image (not the local preview) is shown and has really loaded.
    await eventually(
      () => log.locator('img[src*="/storage/"]').evaluateAll((imgs) => imgs.some((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth > 0)),
      'the sent image, loaded from /storage, in the console',
    );

    // The visitor sees both through the widget's call.
    const history = await eventually(async () => {
      const h = await visitorHistory(known);
      return h.filter((m) => m.sender_type === 'user').length >= 2 ? h : undefined;
    }, 'both agent replies in the visitor history');
    const replies = history.filter((m) => m.sender_type === 'user');
    expect(replies[0]).toMatchObject({ message: 'Hi Victor, happy to help!' });
    expect(replies[1]!.file_path).toMatch(/\.png$/);
    // file_path is relative to the storage area (SPEC.md: images load from /storage/<path>).
    const img = await fetch(`${base()}/storage/${replies[1]!.file_path}`);
    expect(img.status).toBe(200);
    expect(img.headers.get('content-type')).toMatch(/^image\/png/);
    expect(pageErrors).toEqual([]);
    await page.context().close();
  });
});
