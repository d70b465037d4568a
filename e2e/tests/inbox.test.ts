import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { base, createVisitor, eventually, integrationSnippet, registerOwner, visitorSays } from '../support/api';
import { closeBrowser, newSession, useToken, visible } from '../support/browser';

afterAll(closeBrowser);

/** Issue 16, the message center as a team's work surface: paging through 200 conversations. */

const listOf = (page: Page) => page.getByRole('list', { name: 'Conversation list' });

async function openConsole(token: string) {
  const session = await newSession();
  // These journeys hold hundreds of rows: more room than the suite's defaults on a busy machine.
  session.context.setDefaultNavigationTimeout(60_000);
  session.context.setDefaultTimeout(20_000);
  await useToken(session.page, token);
  await session.page.goto(`${base()}/conversations`);
  await visible(session.page.getByText('Live: new messages appear as they arrive'));
  return session;
}

describe('inbox: paging', () => {
  it('pages through 200 conversations by scrolling the list, each once', async () => {
    const owner = await registerOwner('Paula Pager');
    const { key } = await integrationSnippet(owner.token);
    // Ten at a time: batch after batch, so the newest batch is 190-199 and the oldest 000-009.
    for (let b = 0; b < 20; b++) {
      await Promise.all(
        Array.from({ length: 10 }, async (_, j) => {
          const i = b * 10 + j;
          await visitorSays(await createVisitor(key, { name: `Pager ${String(i).padStart(3, '0')}` }), `Question ${i}`);
        }),
      );
    }
    const { page, pageErrors, context } = await openConsole(owner.token);
    await visible(page.getByText('200 active conversations'));
    const rows = listOf(page).getByRole('button', { name: /Pager \d{3}/ });
    // The first page only: the console pages (limit + cursor), it never loads everything.
    await eventually(async () => (await rows.count()) === 50, 'the first page of 50');
    for (let i = 0; i < 10 && (await rows.count()) < 200; i++) {
      await listOf(page).locator('li').last().scrollIntoViewIfNeeded();
      await page.waitForTimeout(400);
    }
    await eventually(async () => (await rows.count()) === 200, 'all 200 conversations after scrolling');
    const names = await rows.locator('.conv-name').allTextContents();
    expect(new Set(names).size).toBe(200);
    // Newest first: the last batch to write is at the top, the first at the bottom.
    expect(names[0]).toMatch(/^Pager 19\d$/);
    expect(names.at(-1)).toMatch(/^Pager 00\d$/);
    expect(pageErrors).toEqual([]);
    await context.close();
  }, 300_000);
});
