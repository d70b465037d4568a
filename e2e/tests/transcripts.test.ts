
import type { Socket } from 'socket.io-client';
import { afterAll, describe, expect, it } from 'vitest';
import { apiCall, eventually, registerOwner } from '../support/api';
import { closeBrowser, newSession, visible } from '../support/browser';
import { agentRepliesToOnlyChat, consoleSocket, hostPageWithWidget, visitorWrites } from '../support/widget';
import { mailsTo } from '../support/mail';

let agent: Socket | undefined;
afterAll(async () => {
  agent?.disconnect();
  await closeBrowser();
});

// Issue 13, transcripts: a visitor whose email the host page gave asks for the transcript from the
// widget's menu; it is emailed when the agent resolves the conversation (server tests check the
// same email against a real SMTP server).
describe('transcripts (issue 13)', () => {
  it('the menu asks for the transcript, and the resolve emails it with the business name, text and HTML', async () => {
    const owner = await registerOwner('Theo Transcript');
    const email = `tina-${Date.now().toString(36)}@example.com`;
    const identify = `<script>window.Parley=window.Parley||function(){(window.Parley.q=window.Parley.q||[]).push(arguments)};Parley('identify',{name:'Tina',email:'${email}'});</script>`;
    const hostPage = await hostPageWithWidget(owner.token, 'transcript.html', { name: 'Tidewater Books', title: 'Help', color: '#1f4e79' }, { heading: 'Tidewater', before: identify });
    agent = await consoleSocket(owner.token);

    const { page, pageErrors, context } = await newSession();
    await page.goto(hostPage);
    const panel = await visitorWrites(page, 'Tidewater Books', 'Do you have maps of Cornwall?');
    const visitorId = await agentRepliesToOnlyChat(owner.token, 'Yes: three walking maps.');
    await visible(panel.getByText('Yes: three walking maps.'));

    const menuButton = panel.getByRole('button', { name: 'More options' });
    await menuButton.click();
    const item = await visible(panel.getByRole('menuitem', { name: 'Email me the transcript' }));
    expect(await menuButton.getAttribute('aria-expanded')).toBe('true');
    await item.click();
    await visible(panel.getByRole('status').getByText("We'll email you the transcript when the conversation ends."));
    await new Promise((r) => setTimeout(r, 1000));
    expect(await mailsTo(email)).toHaveLength(0);

    expect((await apiCall('POST', `/api/vms/conversations/${visitorId}/status`, { token: owner.token, body: { status: 'resolved' } })).status).toBe(200);
    const [mail] = await eventually(async () => {
      const found = await mailsTo(email);
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
