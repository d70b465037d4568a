import fs from 'node:fs';
import path from 'node:path';
import type { Socket } from 'socket.io-client';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { apiCall, base, deliveryAcks, eventually, integrationSnippet, type MessageDto, registerOwner } from '../support/api';
import { closeBrowser, newSession, visible } from '../support/browser';
import { consoleSocket } from '../support/widget';
import { pngFile } from '../support/png';

let agent: Socket | undefined;
afterAll(async () => {
  agent?.disconnect();
  await closeBrowser();
});

const COLOR = '#f2709c';
const COLOR_RGB = 'rgb(242, 112, 156)';

describe('widget on a foreign page (journey 8)', () => {
  it('embeds the exact snippet, greets, sends text and an image to a live agent, shows the reply and typing, and keeps history on reload', async () => {
    const owner = await registerOwner('Wendy Widget');
    // What the onboarding wizard saves: look and greetings.
    const look = new FormData();
    look.set('name', 'Wendy Shop');
    look.set('title', 'Sales team');
    look.set('color', COLOR);
    expect((await apiCall('POST', '/api/vms/chatwidget-settings', { token: owner.token, form: look })).status).toBeLessThan(300);
    const greetings = { initial_greeting: 'Welcome to Wendy Shop! Ask us anything.', follow_up_greeting: 'We usually answer within a minute.' };
    expect((await apiCall('POST', '/api/vms/greetings', { token: owner.token, body: greetings })).status).toBeLessThan(300);

    // The customer's page, on another origin, with the snippet exactly as the integration page gives it.
    const { script } = await integrationSnippet(owner.token);
    expect(script).toMatch(/^<script src="http:\/\/127\.0\.0\.1:\d+\/widget\.js" data-widget="[^"]+" async><\/script>$/);
    fs.writeFileSync(
      path.join(inject('hostDir'), 'shop.html'),
      `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Wendy's shop</title></head>\n<body><h1>Wendy's shop</h1><p>Our products.</p>\n${script}\n</body></html>\n`,
    );
    const hostPage = `${inject('hostUrl')}/shop.html`;
    expect(new URL(hostPage).origin).not.toBe(new URL(base()).origin);

    // An agent is online (console socket), collecting what the visitor sends.
    const created: MessageDto[] = [];
    agent = await consoleSocket(owner.token);
    agent.on('message.created', (p: { message: MessageDto }) => created.push(p.message));

    const { page, pageErrors } = await newSession();
    await page.goto(hostPage);
    const launcher = page.getByRole('button', { name: 'Open chat' });
    await visible(launcher, 15_000);
    expect(await launcher.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe(COLOR_RGB);
    await launcher.click();
    const panel = page.getByRole('dialog', { name: 'Wendy Shop' });
    await visible(panel, 15_000);
    await visible(panel.getByText(greetings.initial_greeting));
    await visible(panel.getByText('Sales team'));
    await visible(panel.getByText(/Powered by/));

    // The visitor writes.
    const input = panel.getByRole('textbox', { name: 'Type a message' });
    await visible(input);
    await input.fill('Do you ship to Portugal?');
    await panel.getByRole('button', { name: 'Send', exact: true }).click();
    const text = await eventually(async () => created.find((m) => m.message === 'Do you ship to Portugal?'), 'the visitor text on the agent socket');
    expect(text.sender_type).toBe('visitor');
    // The follow-up greeting answers the first message.
    await visible(panel.getByText(greetings.follow_up_greeting));

    // ...and sends an image.
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), panel.getByRole('button', { name: 'Attach image' }).click()]);
    await chooser.setFiles(pngFile('photo.png'));
    const image = await eventually(async () => created.find((m) => m.sender_type === 'visitor' && m.file_path), 'the visitor image on the agent socket');
    expect(image.file_path).toMatch(/\.png$/);
    expect(image.visitor_id).toBe(text.visitor_id);

    // The agent types, then replies (acked with the stored message).
    agent.emit('typing', { visitor_id: text.visitor_id, typing: true });
    await visible(panel.getByText(/Wendy Widget typing/));
    const ack = (await agent.timeout(5000).emitWithAck('message.send', { visitor_id: text.visitor_id, message: 'Yes, we ship everywhere in Europe.', client_id: 'e2e-reply-1' })) as { ok: boolean; data?: MessageDto };
    expect(ack.ok).toBe(true);
    expect(ack.data).toMatchObject({ message: 'Yes, we ship everywhere in Europe.', sender_type: 'user', client_id: 'e2e-reply-1' });
    await visible(panel.getByText('Yes, we ship everywhere in Europe.'));
    // The widget acknowledged the pushed reply on receipt: the server timed its delivery.
    await eventually(async () => (await deliveryAcks('widget')) > 0, 'the widget delivery ack in /metrics');

    // A reload keeps the history (the visitor token lives in the host page's localStorage).
    await page.reload();
    await page.getByRole('button', { name: /^Open chat/ }).click();
    const again = page.getByRole('dialog', { name: 'Wendy Shop' });
    await visible(again.getByText('Do you ship to Portugal?'), 15_000);
    await visible(again.getByText('Yes, we ship everywhere in Europe.'));
    expect(await again.locator('img[src*="/storage/"]').count()).toBe(1);
    expect(pageErrors).toEqual([]);
    await page.context().close();
  });
});
