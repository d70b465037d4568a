import fs from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { io, type Socket } from 'socket.io-client';
import { expect, inject } from 'vitest';
import { apiCall, base, eventually, integrationSnippet } from './api';
import { visible } from './browser';

/**
 * The customer's website of a journey: the widget styled (`name` is the panel's title) and a
 * page on the host server carrying the account's exact snippet (after `head`, e.g. an identify
 * call). Answers the page's URL.
 */
export async function hostPageWithWidget(token: string, file: string, look: { name: string; title: string; color: string }, opts: { heading?: string; before?: string } = {}): Promise<string> {
  const form = new FormData();
  for (const [k, v] of Object.entries(look)) form.set(k, v);
  expect((await apiCall('POST', '/api/vms/chatwidget-settings', { token, form })).status).toBeLessThan(300);
  const { script } = await integrationSnippet(token);
  const heading = opts.heading ?? look.name;
  fs.writeFileSync(
    path.join(inject('hostDir'), file),
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${heading}</title></head>\n<body><h1>${heading}</h1>\n${opts.before ?? ''}\n${script}\n</body></html>\n`,
  );
  return `${inject('hostUrl')}/${file}`;
}

/** A console socket of `token`, connected (an agent online: the widget shows its composer). */
export async function consoleSocket(token: string): Promise<Socket> {
  const socket = io(base(), { auth: { token }, transports: ['websocket'], reconnection: false });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', (e) => reject(e));
  });
  return socket;
}

/** Opens the widget on the page and sends `text` from its composer; answers the open panel. */
export async function visitorWrites(page: Page, panelName: string, text: string): Promise<Locator> {
  await page.getByRole('button', { name: 'Open chat' }).click();
  const panel = page.getByRole('dialog', { name: panelName });
  await visible(panel, 15_000);
  await panel.getByRole('textbox', { name: 'Type a message' }).fill(text);
  await panel.getByRole('button', { name: 'Send', exact: true }).click();
  return panel;
}

/** The account's only conversation, once it exists: the agent replies `text` in it. Answers its visitor id. */
export async function agentRepliesToOnlyChat(token: string, text: string): Promise<string> {
  const list = await eventually(async () => {
    const res = await apiCall<{ data: { visitor_id: string }[] }>('GET', '/api/vms/conversations', { token });
    return res.body.data.length === 1 && res.body.data;
  }, 'the conversation');
  const visitorId = list[0]!.visitor_id;
  const form = new FormData();
  form.set('visitor_id', visitorId);
  form.set('message', text);
  expect((await apiCall('POST', '/api/vms/messages', { token, form })).status).toBe(201);
  return visitorId;
}
