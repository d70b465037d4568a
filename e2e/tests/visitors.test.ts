import { afterAll, describe, expect, it } from 'vitest';
import { base, createVisitor, integrationSnippet, registerOwner, visitorSays } from '../support/api';
import { closeBrowser, newSession, visible, waitForPath } from '../support/browser';

afterAll(closeBrowser);

describe('visitors page (journey 4)', () => {
  it('lists visitors with their details and opens the details dialog; Start Chat leads to /conversations', async () => {
    const owner = await registerOwner('Vera Visitors');
    const { key } = await integrationSnippet(owner.token);
    const grace = await createVisitor(key, { name: 'Grace Hopper', email: 'grace@example.com' }, '8.8.8.8');
    await visitorSays(grace, 'Hi there');
    await createVisitor(key, {}, '10.1.2.3');

    const { page, pageErrors } = await newSession({ token: owner.token });
    await page.goto(`${base()}/visitors`);
    const list = page.getByRole('list', { name: 'Visitor list' });
    await visible(list);
    expect(await list.getByRole('listitem').count()).toBe(2);
    const card = list.getByRole('listitem').filter({ hasText: 'Grace Hopper' });
    await visible(card.getByText('grace@example.com'));
    await visible(card.getByText('United States'));
    await visible(card.getByText('8.8.8.8'));
    // The anonymous visitor: 'Anonymous', 'N/A' email, 'Unknown' country (private IP).
    const anon = list.getByRole('listitem').filter({ hasText: 'Anonymous' });
    await visible(anon.getByText('Unknown'));
    await visible(anon.getByText('N/A').first());
    // Summary cards.
    await visible(page.getByText('Total Visitors'));
    await visible(page.getByText('Countries'));

    await card.getByRole('button', { name: 'View Details of Grace Hopper' }).click();
    const dialog = page.getByRole('dialog', { name: 'Visitor Details' });
    await visible(dialog);
    for (const text of ['Grace Hopper', 'grace@example.com', 'United States', '8.8.8.8']) await visible(dialog.getByText(text, { exact: true }));
    await visible(dialog.getByText(/^Visited /));
    await dialog.getByRole('link', { name: 'Start Chat' }).click();
    await waitForPath(page, '/conversations');
    await visible(page.getByRole('heading', { name: 'Conversations' }));
    expect(pageErrors).toEqual([]);
    await page.context().close();
  });
});
