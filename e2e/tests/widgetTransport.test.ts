import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { base, createVisitor, eventually, integrationSnippet, registerOwner, visitorSays } from '../support/api';
import { closeBrowser, newSession, visible } from '../support/browser';

let proxy: http.Server | undefined;
afterAll(async () => {
  proxy?.close();
  proxy?.closeAllConnections();
  await closeBrowser();
});

/**
 * A proxy in front of the Parley server that passes HTTP (long-polls included) and refuses every
 * WebSocket upgrade with 403, as corporate proxies do.
 */
async function upgradeBlockingProxy(target: string): Promise<{ url: string; refused: () => number }> {
  const to = new URL(target);
  let refused = 0;
  proxy = http.createServer((req, res) => {
    const out = http.request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (back) => {
      res.writeHead(back.statusCode ?? 502, back.headers);
      back.pipe(res);
    });
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  proxy.on('upgrade', (_req, socket) => {
    refused++;
    socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
  });
  await new Promise<void>((r) => proxy!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, refused: () => refused };
}

/** Socket.IO long-polling requests the page made (URL and, for GETs, the body the server answered). */
function pollsOf(page: Page): { url: string; body: string }[] {
  const polls: { url: string; body: string }[] = [];
  page.on('response', (r) => {
    if (!r.url().includes('/socket.io/') || !r.url().includes('transport=polling')) return;
    const entry = { url: r.url(), body: '' };
    polls.push(entry);
    if (r.request().method() === 'GET')
      r.text().then(
        (t) => (entry.body = t),
        () => undefined,
      );
  });
  return polls;
}

describe('live without WebSocket (issue 13, transport)', () => {
  it('a widget and a console whose WebSockets a proxy blocks talk live over long-polling, well before the 10 s poll', async () => {
    const owner = await registerOwner('Paula Proxy');
    const { script, key } = await integrationSnippet(owner.token);
    const blocked = await upgradeBlockingProxy(base());
    fs.writeFileSync(
      path.join(inject('hostDir'), 'proxied.html'),
      `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Behind a proxy</title></head>\n<body><h1>Corporate intranet</h1>\n${script.replace(base(), blocked.url)}\n</body></html>\n`,
    );
    const hostPage = `${inject('hostUrl')}/proxied.html`;
    expect(new URL(hostPage).origin).not.toBe(new URL(base()).origin);

    // The console, reached through the same proxy.
    const agent = await newSession();
    await agent.page.goto(`${blocked.url}/login`);
    await agent.page.evaluate((t) => localStorage.setItem('auth_token', t), owner.token);
    const consolePolls = pollsOf(agent.page);
    const seed = await createVisitor(key, { name: 'Seed Visitor' });
    await visitorSays(seed, 'seed');
    await agent.page.goto(`${blocked.url}/conversations`);
    await visible(agent.page.getByText('Live: new messages appear as they arrive'), 15_000);

    const consoleRefusals = blocked.refused();
    expect(consoleRefusals).toBeGreaterThan(0);

    // The visitor's page loads the widget through the proxy too.
    const visitor = await newSession();
    const widgetPolls = pollsOf(visitor.page);
    await visitor.page.goto(hostPage);
    await visitor.page.getByRole('button', { name: 'Open chat' }).click();
    const panel = visitor.page.getByRole('dialog');
    const input = panel.getByRole('textbox', { name: 'Type a message' });
    await visible(input, 15_000);
    // Once the widget's long-poll session is up (its WebSocket refused), what it sends is live:
    // the time below is the message's way through both polling sockets, not the fallback's start.
    await eventually(async () => widgetPolls.some((p) => p.url.includes('sid=')), 'the widget long-polling');
    await input.fill('Hello from behind the firewall');
    await panel.getByRole('button', { name: 'Send', exact: true }).click();

    // The console shows the new conversation live (its socket.io-client fell back to polling).
    const list = agent.page.getByRole('list', { name: 'Conversation list' });
    const t0 = Date.now();
    const row = list.getByRole('button', { name: /Hello from behind the firewall/ });
    await visible(row, 5000);
    const consoleMs = Date.now() - t0;
    await row.click();
    const log = agent.page.getByRole('log', { name: 'Messages' });
    await visible(log.getByText('Hello from behind the firewall'));

    const composer = agent.page.getByRole('textbox', { name: 'Message' });
    await composer.fill('We hear you loud and clear.');
    await agent.page.getByRole('button', { name: 'Send message' }).click();
    const t1 = Date.now();
    await visible(panel.getByText('We hear you loud and clear.'), 5000);
    const widgetMs = Date.now() - t1;

    // It came over Socket.IO's polling transport: a held GET answered with the pushed message.
    await eventually(async () => widgetPolls.some((p) => p.body.includes('We hear you loud and clear.')), 'the reply in a long-poll answer');
    expect(blocked.refused()).toBeGreaterThan(consoleRefusals);
    expect(consolePolls.some((p) => p.url.includes('sid='))).toBe(true);
    console.log(`[transport] console saw the visitor in ${consoleMs} ms; widget showed the reply in ${widgetMs} ms (both over long-polling)`);
    expect(consoleMs).toBeLessThan(5000);
    expect(widgetMs).toBeLessThan(5000);
    expect(visitor.pageErrors).toEqual([]);
    expect(agent.pageErrors).toEqual([]);
    await visitor.context.close();
    await agent.context.close();
  });
});
