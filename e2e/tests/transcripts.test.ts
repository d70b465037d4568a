import fs from 'node:fs';
import path from 'node:path';
import { io, type Socket } from 'socket.io-client';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { apiCall, base, eventually, integrationSnippet, registerOwner } from '../support/api';
import { closeBrowser, newSession, visible } from '../support/browser';

let agent: Socket | undefined;
afterAll(async () => {
  agent?.disconnect();
  await closeBrowser();
});

/** The raw .eml files addressed to `to` (the suite's server has no SMTP_URL: mail goes to DATA_DIR/mail). */
function mailsTo(to: string): string[] {
  const dir = path.join(inject('dataDir'), 'mail');
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.eml'))
    .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'))
    .filter((raw) => new RegExp(`^To: .*${to.replace(/[.+]/g, '\\$&')}`, 'mi').test(raw))
    .map((raw) => raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(Number.parseInt(h, 16))));
}

// Issue 13, transcripts: a visitor whose email the host page gave asks for the transcript from the
// widget's menu; it is emailed when the agent resolves the conversation (server tests check the
// same email against a real SMTP server).
describe('transcripts (issue 13)', () => {
  it('the menu asks for the transcript, and the resolve emails it with the business name, text and HTML', async () => {
    const owner = await registerOwner('Theo Transcript');
    const look = new FormData();
    look.set('name', 'Tidewater Books');
    look.set('title', 'Help');
    look.set('color', '#1f4e79');
    expect((await apiCall('POST', '/api/vms/chatwidget-settings', { token: owner.token, form: look })).status).toBeLessThan(300);
    const { script } = await integrationSnippet(owner.token);
    const email = `tina-${Date.now().toString(36)}@example.com`;
    const identify = `<script>window.Parley=window.Parley||function(){(window.Parley.q=window.Parley.q||[]).push(arguments)};Parley('identify',{name:'Tina',email:'${email}'});</script>`;
    fs.writeFileSync(path.join(inject('hostDir'), 'transcript.html'), `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Tidewater</title></head>\n<body><h1>Tidewater</h1>\n${identify}\n${script}\n</body></html>\n`);

    agent = io(base(), { auth: { token: owner.token }, transports: ['websocket'], reconnection: false });
    await new Promise<void>((resolve, reject) => {
      agent!.once('connect', () => resolve());
      agent!.once('connect_error', (e) => reject(e));
    });

    const { page, pageErrors, context } = await newSession();
    await page.goto(`${inject('hostUrl')}/transcript.html`);
    await page.getByRole('button', { name: 'Open chat' }).click();
    const panel = page.getByRole('dialog', { name: 'Tidewater Books' });
    await visible(panel, 15_000);
    await panel.getByRole('textbox', { name: 'Type a message' }).fill('Do you have maps of Cornwall?');
    await panel.getByRole('button', { name: 'Send', exact: true }).click();
    const list = await eventually(async () => {
      const res = await apiCall<{ data: { visitor_id: string }[] }>('GET', '/api/vms/conversations', { token: owner.token });
      return res.body.data.length === 1 && res.body.data;
    }, 'the conversation');
    const visitorId = list[0]!.visitor_id;
    const form = new FormData();
    form.set('visitor_id', visitorId);
    form.set('message', 'Yes: three walking maps.');
    expect((await apiCall('POST', '/api/vms/messages', { token: owner.token, form })).status).toBe(201);
    await visible(panel.getByText('Yes: three walking maps.'));

    const menuButton = panel.getByRole('button', { name: 'More options' });
    await menuButton.click();
    const item = await visible(panel.getByRole('menuitem', { name: 'Email me the transcript' }));
    expect(await menuButton.getAttribute('aria-expanded')).toBe('true');
    await item.click();
    await visible(panel.getByRole('status').getByText("We'll email you the transcript when the conversation ends."));
    await new Promise((r) => setTimeout(r, 1000));
    expect(mailsTo(email)).toHaveLength(0);

    expect((await apiCall('POST', `/api/vms/conversations/${visitorId}/status`, { token: owner.token, body: { status: 'resolved' } })).status).toBe(200);
    const [mail] = await eventually(async () => {
      const found = mailsTo(email);
      return found.length > 0 && found;
    }, 'the transcript email', 20_000);
    expect(mail).toMatch(/^Subject: Your conversation with Tidewater Books/m);
    expect(mail).toContain('Content-Type: text/plain');
    expect(mail).toContain('Content-Type: text/html');
    expect(mail).toContain('Do you have maps of Cornwall?');
    expect(mail).toContain('Yes: three walking maps.');
    expect(mail).not.toContain('resolved the conversation');
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
