import type { Locator } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { base, createVisitor, eventually, integrationSnippet, registerOwner, visitorSays } from '../support/api';
import { closeBrowser, newSession, visible } from '../support/browser';

afterAll(closeBrowser);

const PHONE = { width: 390, height: 844 };

/** On screen = some part of its box lies inside the viewport (the closed sidebar is translated off it). */
async function onScreen(l: Locator): Promise<boolean> {
  const box = await l.boundingBox();
  return box !== null && box.width > 0 && box.x + box.width > 1 && box.x < PHONE.width;
}

describe('small screens (journey 7)', () => {
  it('toggles the sidebar with an overlay, and shows one message-center panel at a time', async () => {
    const owner = await registerOwner('Milo Mobile');
    const { key } = await integrationSnippet(owner.token);
    const visitor = await createVisitor(key, { name: 'Penny Phone' });
    await visitorSays(visitor, 'Hello from my phone');

    const { page, pageErrors } = await newSession({ token: owner.token, viewport: PHONE, isMobile: true });
    await page.goto(`${base()}/dashboard`);
    const sidebar = page.getByRole('complementary', { name: 'Sidebar' });
    const menu = page.getByRole('button', { name: 'Open menu' });
    await visible(menu);
    await eventually(async () => !(await onScreen(sidebar)), 'the sidebar hidden on a phone');
    expect(await page.locator('.sidebar-overlay').count()).toBe(0);

    await menu.click();
    await eventually(() => onScreen(sidebar), 'the sidebar opened');
    const overlay = page.locator('.sidebar-overlay');
    await visible(overlay);
    // The overlay closes it.
    await overlay.click({ position: { x: PHONE.width - 20, y: PHONE.height / 2 } });
    await eventually(async () => !(await onScreen(sidebar)), 'the sidebar closed by the overlay');
    expect(await overlay.count()).toBe(0);

    // Open again and navigate: the sidebar closes by itself.
    await page.getByRole('button', { name: 'Open menu' }).click();
    await eventually(() => onScreen(sidebar), 'the sidebar opened again');
    await sidebar.getByRole('link', { name: 'Conversations' }).click();
    await page.waitForURL((u) => u.pathname === '/conversations');
    await eventually(async () => !(await onScreen(sidebar)), 'the sidebar closed after navigating');

    // Message center: the list alone, then the chat alone, then back.
    const listPanel = page.locator('section.mc-list');
    const item = page.getByRole('list', { name: 'Conversation list' }).getByRole('button', { name: /Penny Phone/ });
    await visible(item);
    expect(await page.getByRole('button', { name: 'Back to conversations' }).count()).toBe(0);
    await item.click();
    const back = page.getByRole('button', { name: 'Back to conversations' });
    await visible(back);
    await visible(page.getByRole('log', { name: 'Messages' }).getByText('Hello from my phone'));
    expect(await listPanel.isVisible()).toBe(false);
    await back.click();
    await visible(item);
    expect(await listPanel.isVisible()).toBe(true);
    expect(await page.getByRole('region', { name: /^Chat/ }).isVisible()).toBe(false);
    expect(pageErrors).toEqual([]);
    await page.context().close();
  });
});
