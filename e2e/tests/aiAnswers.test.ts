import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { apiCall, base, eventually, registerOwner } from '../support/api';
import { closeBrowser, getBrowser, newSession, visible } from '../support/browser';
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

  it("owner pastes the site's URL; a German visitor in Tokyo gets the answer citing the page and, outside the business hours set on the Settings screen (with a lunch break), is told in German when the team is back at their own time, by the away text and the hand-over", async () => {
    const owner = await registerOwner('Berta Owner');
    // The business's website (on the journeys' host server): one page, read by the crawler through the console.
    fs.writeFileSync(
      path.join(inject('hostDir'), 'spokes-winter.html'),
      '<!doctype html><html><head><meta charset="utf-8"><title>Winter storage | Spokes</title></head><body><main><h1>Winter storage</h1><p>We keep your bike over the winter in our dry cellar, from November to March, for 60 euros.</p></main></body></html>',
    );
    const siteUrl = `${inject('hostUrl')}/spokes-winter.html`;
    const { page: chatbotPage } = await newSession({ token: owner.token });
    await chatbotPage.goto(`${base()}/chatbots`);
    await chatbotPage.getByRole('button', { name: 'Knowledge sources' }).click();
    const sources = chatbotPage.getByRole('region', { name: 'Knowledge sources' });
    await sources.getByLabel('Website address').fill(siteUrl);
    await sources.getByRole('button', { name: 'Add website' }).click();
    const site = sources.getByRole('listitem').filter({ hasText: '127.0.0.1' });
    await visible(site.getByText('Ready'), 30_000);
    await visible(site.getByText(/1 page/));
    await chatbotPage.close();

    // Open only on the weekday three days from now (in Berlin), 09:00 to 17:00: closed now.
    const days = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
    const openDay = new Intl.DateTimeFormat('en-US', { timeZone: 'Europe/Berlin', weekday: 'long' }).format(new Date(Date.now() + 3 * 86_400_000));
    const { page: consolePage } = await newSession({ token: owner.token });
    await consolePage.goto(`${base()}/settings`);
    const card = consolePage.getByRole('region', { name: 'Business Hours' });
    await visible(card.getByText('Open now.'));
    await card.getByLabel('Time zone').selectOption('Europe/Berlin');
    await card.getByLabel('Set hours per day').check();
    for (const d of days) await card.getByRole('checkbox', { name: d }).setChecked(d === openDay);
    // A lunch break: 09:00 to 12:00, then 13:00 to 17:00.
    await card.getByLabel(`${openDay} closes`).fill('12:00');
    await card.getByRole('button', { name: `Add opening on ${openDay}` }).click();
    await card.getByLabel(`${openDay} opens (2)`).fill('13:00');
    await card.getByLabel(`${openDay} closes (2)`).fill('17:00');
    await card.getByRole('button', { name: 'Save Business Hours' }).click();
    await visible(card.getByText('Business hours saved'));
    await visible(card.getByText(`Closed now; opens ${openDay} 09:00 (Europe/Berlin).`));
    await consolePage.close();
    const hours = await apiCall<{ data: { next_open_at: string; hours: Record<string, unknown> } }>('GET', '/api/vms/business-hours', { token: owner.token });
    const backAt = new Date(hours.body.data.next_open_at);
    expect(Object.values(hours.body.data.hours)).toContainEqual([
      { open: '09:00', close: '12:00' },
      { open: '13:00', close: '17:00' },
    ]);
    // In German, at the visitor's own time in Tokyo (09:00 in Berlin is 17:00 there).
    const weekday = new Intl.DateTimeFormat('de', { timeZone: 'Asia/Tokyo', weekday: 'long' }).format(backAt);
    const time = new Intl.DateTimeFormat('de', { timeZone: 'Asia/Tokyo', hour: '2-digit', minute: '2-digit' }).format(backAt);
    expect(time).toBe('17:00');

    expect((await apiCall('POST', '/api/chatbot/settings', { token: owner.token, body: { auto_answer_enabled: true, threshold: 0.6 } })).status).toBe(200);
    expect((await apiCall('PATCH', '/api/vms/me/availability', { token: owner.token, body: { availability: 'away' } })).status).toBe(200);
    const url = await hostPageWithWidget(owner.token, 'ai-hours.html', { name: 'Bäckerei Support', title: 'Brot und Kuchen', color: '#8a5a00' });
    const context = await (await getBrowser()).newContext({ locale: 'de-DE', timezoneId: 'Asia/Tokyo', viewport: { width: 1280, height: 860 } });
    try {
      const page = await context.newPage();
      await page.goto(url);
      await page.getByRole('button', { name: 'Chat öffnen' }).click();
      const panel = page.getByRole('dialog', { name: 'Bäckerei Support' });
      await visible(panel, 15_000);
      // Nobody online, outside the hours: the away text says when the team is back, in German at the visitor's time.
      await visible(panel.locator('form p').filter({ hasText: `Wir sind am ${weekday} um ${time} zurück.` }), 15_000);
      await panel.getByLabel('E-Mail').fill('kunde@example.com');
      await panel.getByLabel('Nachricht').fill('Can you keep my bike over the winter?');
      await panel.getByRole('button', { name: 'Senden' }).click();
      // The answer from the website, citing the page (its title, linked), in the visitor's language.
      const answer = panel.locator('.m').filter({ hasText: 'dry cellar' });
      await visible(answer, 30_000);
      await visible(answer.getByText('Quelle: Winter storage | Spokes'));
      expect(await answer.getByRole('link', { name: 'Winter storage | Spokes' }).getAttribute('href')).toBe(siteUrl);
      await answer.getByRole('button', { name: 'Mit einem Menschen sprechen' }).click();
      const said = panel.locator('.m').filter({ hasText: 'Ich bitte ein Mitglied unseres Teams, zu übernehmen.' });
      await visible(said, 20_000);
      expect((await said.locator('.bu').textContent())?.trim()).toBe(`Ich bitte ein Mitglied unseres Teams, zu übernehmen. Wir sind am ${weekday} um ${time} zurück.`);
      await visible(said.getByText('Assistent'));
      expect(await said.getByRole('button').count()).toBe(0);
    } finally {
      await context.close();
    }
    // The team reads the same message in English, at the visitor's time.
    const conv = await eventually(async () => (await apiCall<{ data: { visitor_id: string }[] }>('GET', '/api/vms/conversations', { token: owner.token })).body.data[0], 'the conversation');
    const msgs = await apiCall<{ data: { sender_type: string; message: string }[] }>('GET', `/api/vms/messages/${conv.visitor_id}`, { token: owner.token });
    const englishDay = new Intl.DateTimeFormat('en-GB', { timeZone: 'Asia/Tokyo', weekday: 'long' }).format(backAt);
    expect(msgs.body.data.at(-1)).toMatchObject({ sender_type: 'bot', message: `I'm asking a member of our team to take over. We're back ${englishDay} at 17:00.` });
  });
});
