import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { apiCall, base, eventually, registerOwner } from '../support/api';
import { closeBrowser, newSession, visible } from '../support/browser';
import { hostPageWithWidget } from '../support/widget';

afterAll(closeBrowser);

const FAQ = [
  'question,answer',
  '"Do you ship to other countries?","Yes, we ship worldwide. Delivery abroad takes 5 to 8 business days."',
  '"How do I return a bike?","Returns are free within 30 days: bring the bike to the shop with its receipt."',
  '"Do you repair electric bikes?","Yes, our workshop services electric bikes and their batteries."',
  '"When is the shop open?","Monday to Saturday, 9:00 to 18:00."',
].join('\n');

describe('issue 17: the assistant answers a visitor from an FAQ, with its source, and hands over', () => {
  it('owner uploads an FAQ in the console; the widget answer shows AI, the FAQ citation, and "Talk to a person" tells when a person replies', async () => {
    const owner = await registerOwner('Olivia Owner');
    const { page: consolePage } = await newSession({ token: owner.token });
    await consolePage.goto(`${base()}/chatbots`);
    await consolePage.getByRole('button', { name: 'Knowledge sources' }).click();
    const card = consolePage.getByRole('region', { name: 'Knowledge sources' });
    await visible(card);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'parley-faq-')), 'bike-faq.csv');
    fs.writeFileSync(file, FAQ);
    await card.locator('input[type=file]').setInputFiles(file);
    const item = card.getByRole('listitem').filter({ hasText: 'bike-faq.csv' });
    await visible(item);
    // The card polls while the file is read: it turns Ready with its passages, no reload.
    await visible(item.getByText('Ready'), 30_000);
    await visible(item.getByText(/4 passages/));

    // Auto-answer on; nobody online (the owner is away): the assistant answers visitors.
    expect((await apiCall('POST', '/api/chatbot/settings', { token: owner.token, body: { auto_answer_enabled: true, threshold: 0.6 } })).status).toBe(200);
    expect((await apiCall('PATCH', '/api/vms/me/availability', { token: owner.token, body: { availability: 'away' } })).status).toBe(200);
    await consolePage.close();

    const url = await hostPageWithWidget(owner.token, 'ai-shop.html', { name: 'Spokes Support', title: 'Bikes and repairs', color: '#1f6feb' });
    const { page } = await newSession();
    await page.goto(url);
    await page.getByRole('button', { name: 'Open chat' }).click();
    const panel = page.getByRole('dialog', { name: 'Spokes Support' });
    await visible(panel, 15_000);
    // Away: the offline form takes the question.
    await panel.getByLabel('Email').fill('rider@example.com');
    await panel.getByLabel('Message').fill('Can you deliver my order to other countries?');
    await panel.getByRole('button', { name: 'Send' }).click();

    const answer = panel.locator('.m').filter({ hasText: 'we ship worldwide' });
    await visible(answer, 20_000);
    await visible(answer.getByText('AI', { exact: true }));
    await visible(answer.getByText('Assistant', { exact: false }));
    await visible(answer.getByText('Source: bike-faq.csv'));
    await visible(answer.getByText('Was this helpful?'));

    await answer.getByRole('button', { name: 'Yes' }).click();
    await visible(answer.getByText('Thanks for letting us know.'));
    await answer.getByRole('button', { name: 'Talk to a person' }).click();
    // No replies of this account to go by yet: the general line.
    await visible(panel.getByText("I'm asking a member of our team to take over. A member of our team will answer you here as soon as they can."), 15_000);
    expect(await panel.getByRole('button', { name: 'Talk to a person' }).count()).toBe(0);

    // The console: the conversation carries the hand-over, and the vote shows beside the figures.
    const conv = await eventually(async () => {
      const res = await apiCall<{ data: { visitor_id: string }[] }>('GET', '/api/vms/conversations', { token: owner.token });
      return res.body.data[0];
    }, 'the conversation');
    const msgs = await apiCall<{ data: { sender_type: string; message: string }[] }>('GET', `/api/vms/messages/${conv.visitor_id}`, { token: owner.token });
    expect(msgs.body.data.at(-1)).toMatchObject({ sender_type: 'bot', message: expect.stringContaining("I'm asking a member of our team to take over.") });
    const { page: back } = await newSession({ token: owner.token });
    await back.goto(`${base()}/chatbots`);
    await back.getByRole('button', { name: 'Auto-answer' }).click();
    await visible(back.getByText('Hand-overs to a human'));
    await visible(back.getByText('1 helpful, 0 not helpful'));
  });
});
