
import type { Socket } from 'socket.io-client';
import { afterAll, describe, expect, it } from 'vitest';
import { apiCall, base, registerOwner } from '../support/api';
import { closeBrowser, newSession, useToken, visible } from '../support/browser';
import { agentRepliesToOnlyChat, consoleSocket, hostPageWithWidget, visitorWrites } from '../support/widget';

let agent: Socket | undefined;
afterAll(async () => {
  agent?.disconnect();
  await closeBrowser();
});

// Issue 13, ratings (CSAT): the agent resolves the chat, the widget on a foreign page asks
// "How was this conversation?" once; the rating shows in the console's thread and on the
// dashboard's Satisfaction card.
describe('ratings (issue 13)', () => {
  it('asks once after a resolve, stores the rating, and shows it in the conversation and on the dashboard', async () => {
    const owner = await registerOwner('Rosa Rating');
    const hostPage = await hostPageWithWidget(owner.token, 'rate.html', { name: 'Rosa Shop', title: 'Support', color: '#2a6f4e' }, { heading: "Rosa's shop" });
    // An agent online, so the widget shows the composer.
    agent = await consoleSocket(owner.token);

    const { page, pageErrors, context } = await newSession();
    await page.goto(hostPage);
    const panel = await visitorWrites(page, 'Rosa Shop', 'Is my parcel on its way?');
    const visitorId = await agentRepliesToOnlyChat(owner.token, 'Yes, it left this morning.');
    await visible(panel.getByText('Yes, it left this morning.'));
    expect((await apiCall('POST', `/api/vms/conversations/${visitorId}/status`, { token: owner.token, body: { status: 'resolved' } })).status).toBe(200);

    // The resolve's push asks at once, in the open panel.
    const survey = panel.getByRole('form', { name: 'How was this conversation?' });
    await visible(survey, 10_000);
    await survey.getByRole('button', { name: '4 / 5' }).click();
    await survey.getByRole('textbox', { name: 'Add a comment (optional)' }).fill('Fast answer');
    await survey.getByRole('button', { name: 'Send', exact: true }).click();
    await visible(panel.getByText('Thanks for your feedback!'));

    // Once: a reload, opening and closing the panel again ask nothing.
    await page.reload();
    await page.getByRole('button', { name: 'Open chat' }).click();
    await visible(panel.getByText('Yes, it left this morning.'), 15_000);
    await page.getByRole('button', { name: 'Close chat' }).first().click();
    await page.getByRole('button', { name: 'Open chat' }).click();
    await new Promise((r) => setTimeout(r, 1500));
    expect(await panel.getByText('How was this conversation?').count()).toBe(0);
    expect(pageErrors).toEqual([]);
    await context.close();

    // The console: the rating as a line in the thread, and the dashboard's figure.
    const consoleSession = await newSession();
    await useToken(consoleSession.page, owner.token);
    await consoleSession.page.goto(`${base()}/conversations`);
    await consoleSession.page.getByRole('button', { name: /^Resolved/ }).click();
    await consoleSession.page.getByRole('list', { name: 'Conversation list' }).getByRole('button').first().click();
    await visible(consoleSession.page.getByText('The visitor rated the conversation 4/5: “Fast answer”'), 15_000);
    await consoleSession.page.goto(`${base()}/dashboard`);
    const card = consoleSession.page.locator('.stat-card', { hasText: 'Satisfaction' });
    await visible(card.getByText('4/5'), 15_000);
    await visible(card.getByText('From visitor ratings in this period'));
    expect(consoleSession.pageErrors).toEqual([]);
    await consoleSession.context.close();
  });
});
