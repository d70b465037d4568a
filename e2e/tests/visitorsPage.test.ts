import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { apiCall, base, createVisitor, integrationSnippet, registerOwner } from '../support/api';
import { closeBrowser, newSession, visible, waitForPath } from '../support/browser';

afterAll(closeBrowser);

/**
 * Issue 16, the Visitors page: pages of 50 as the list scrolls, search, "Online now" following a
 * widget that opens on the customer's site, and Start Chat whose first message reaches the widget.
 */
describe('visitors page: paging, search, online now, Start Chat', () => {
  it('pages past 50 visitors, searches, shows a new widget online live with its page, and starts a chat that reaches the widget', async () => {
    const owner = await registerOwner('Paula Pages');
    const { key, script } = await integrationSnippet(owner.token);
    // 60 visitors from distinct public addresses (as real visitors come), one of them searchable.
    for (let i = 0; i < 60; i++) {
      await createVisitor(key, { name: i === 7 ? 'Zora Quill' : `Seed ${String(i).padStart(2, '0')}` }, `203.0.113.${i + 1}`);
    }

    const { page, pageErrors } = await newSession({ token: owner.token });
    await page.goto(`${base()}/visitors`);
    const list = page.getByRole('list', { name: 'Visitor list' });
    await visible(list);
    const cards = list.getByRole('listitem');
    // The first page only, then the rest when the end of the list scrolls into view.
    await expect.poll(() => cards.count()).toBe(50);
    await visible(page.getByText('Showing 50 of 60 visitors'));
    await page.getByRole('button', { name: 'Load more visitors' }).scrollIntoViewIfNeeded();
    await expect.poll(() => cards.count(), { timeout: 10_000 }).toBe(60);
    const ids = await cards.evaluateAll((els) => els.map((e) => e.getAttribute('data-visitor-id')));
    expect(new Set(ids).size).toBe(60);
    // Newest first: the last created visitor leads, the first created closes the list.
    await visible(cards.first().getByText('Seed 59'));
    await visible(cards.last().getByText('Seed 00'));
    await visible(page.locator('.stat-card').filter({ hasText: 'Total Visitors' }).getByText('60', { exact: true }));

    // Server search: a visitor by a prefix of their name.
    await page.getByRole('searchbox', { name: 'Search visitors by name or email' }).fill('zor');
    await expect.poll(() => cards.count()).toBe(1);
    await visible(cards.first().getByText('Zora Quill'));
    await page.getByRole('searchbox', { name: 'Search visitors by name or email' }).fill('');
    await expect.poll(() => cards.count()).toBe(50);

    // Nobody online yet; then a visitor opens the widget on the customer's page.
    const online = page.getByRole('region', { name: /Online now/ });
    await visible(online.getByText('Nobody is on your website right now.'));
    fs.writeFileSync(
      path.join(inject('hostDir'), 'visitors-page.html'),
      `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Paula's shop</title></head>\n<body><h1>Paula's shop</h1>\n${script}\n</body></html>\n`,
    );
    const site = await newSession();
    await site.page.goto(`${inject('hostUrl')}/visitors-page.html`);
    await site.page.getByRole('button', { name: 'Open chat' }).click();
    const panel = site.page.getByRole('dialog');
    await visible(panel, 15_000);
    // Live on the console (no reload): the visitor with the page they are on.
    const onlineList = online.getByRole('list', { name: 'Visitors online now' });
    const row = onlineList.getByRole('listitem');
    await visible(row.first(), 5_000);
    expect(await row.count()).toBe(1);
    await visible(row.first().getByText(/visitors-page\.html/));

    // Start Chat opens the message center on that visitor; the first message reaches the widget.
    await row.first().getByRole('link', { name: /^Start Chat with/ }).click();
    await waitForPath(page, '/conversations');
    const composer = page.getByRole('textbox', { name: 'Message' });
    await visible(composer);
    await composer.fill('Hello from Paula, can I help?');
    await page.getByRole('button', { name: 'Send message' }).click();
    await visible(panel.getByText('Hello from Paula, can I help?'), 5_000);

    // Stored as the visitor's conversation (it did not exist before).
    const conversations = await apiCall<{ data: { last_message: string }[] }>('GET', '/api/vms/conversations?limit=10', { token: owner.token });
    expect(conversations.body.data.map((c) => c.last_message)).toContain('Hello from Paula, can I help?');
    expect(pageErrors).toEqual([]);
    expect(site.pageErrors).toEqual([]);
    await site.context.close();
    await page.context().close();
  });
});
