import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import type { Socket } from 'socket.io-client';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { eventually, integrationSnippet, type MessageDto, registerOwner } from '../support/api';
import { closeBrowser, newSession, visible } from '../support/browser';
import { consoleSocket } from '../support/widget';

let agent: Socket | undefined;
afterAll(async () => {
  agent?.disconnect();
  await closeBrowser();
});

/** What the server said to a tab over its WebSockets (Socket.IO frames as text). */
function framesOf(page: Page): string[] {
  const frames: string[] = [];
  page.on('websocket', (ws) => ws.on('framereceived', (f) => frames.push(String(f.payload))));
  return frames;
}

describe('a visitor with more tabs than the socket cap (journey 12)', () => {
  it('the tab beyond the cap is refused a socket, says nothing, and still shows the agent reply by polling', async () => {
    const owner = await registerOwner('Tess Tabs');
    const { script } = await integrationSnippet(owner.token);
    fs.writeFileSync(path.join(inject('hostDir'), 'tabs.html'), `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Tabs</title></head>\n<body><h1>Tabs</h1>\n${script}\n</body></html>\n`);
    const hostPage = `${inject('hostUrl')}/tabs.html`;

    const created: MessageDto[] = [];
    agent = await consoleSocket(owner.token);
    agent.on('message.created', (p: { message: MessageDto }) => created.push(p.message));

    // The first tab opens the chat and writes: the visitor exists (its token in the site's localStorage).
    const { page, pageErrors } = await newSession();
    await page.goto(hostPage);
    await page.getByRole('button', { name: 'Open chat' }).click();
    const input = page.getByRole('textbox', { name: 'Type a message' });
    await visible(input, 15_000);
    await input.fill('Hello from tab one');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const first = await eventually(async () => created.find((m) => m.message === 'Hello from tab one'), 'the first message at the agent');

    // Three more tabs of the same visitor: the server's cap is 3 live sockets per visitor.
    const tabs: Page[] = [page];
    const frames: string[][] = [framesOf(page)];
    for (let i = 0; i < 3; i++) {
      const tab = await page.context().newPage();
      tab.on('pageerror', (e) => pageErrors.push(e.message));
      frames.push(framesOf(tab));
      await tab.goto(hostPage);
      await visible(tab.getByRole('button', { name: /^Open chat/ }), 15_000);
      tabs.push(tab);
    }
    const last = tabs[3]!;
    await eventually(async () => frames[3]!.find((f) => f.includes('Too many connections')), 'the fourth tab refused a socket');
    for (const f of frames.slice(1, 3)) expect(f.some((x) => x.includes('Too many connections'))).toBe(false);

    await last.getByRole('button', { name: /^Open chat/ }).click();
    const panel = last.getByRole('dialog');
    await visible(panel.getByText('Hello from tab one'), 15_000);
    const ack = (await agent.timeout(5000).emitWithAck('message.send', { visitor_id: first.visitor_id, message: 'Reply for every tab', client_id: 'e2e-tabs-1' })) as { ok: boolean };
    expect(ack.ok).toBe(true);
    // The tabs with a socket show it at once; the refused tab by its 10 s poll, calmly.
    await visible(page.getByText('Reply for every tab'), 5_000);
    await visible(panel.getByText('Reply for every tab'), 15_000);
    expect(await last.getByText(/Too many|connection/i).count()).toBe(0);
    expect(pageErrors).toEqual([]);
    await page.context().close();
  });
});
