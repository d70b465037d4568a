import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { PASSWORD, apiCall, base, createVisitor, eventually, integrationSnippet, login, registerOwner, uniqueEmail, visitorSays } from '../support/api';
import { closeBrowser, newSession, visible } from '../support/browser';

afterAll(closeBrowser);

/**
 * Issue 16, a team's day in the message center: two agents see each other's status and
 * assignment changes live; the visitor side panel; older history on scroll up; a search hit in
 * a conversation that is not loaded opens at the message; the keyboard shortcuts.
 */

const listOf = (page: Page) => page.getByRole('list', { name: 'Conversation list' });
const rowOf = (page: Page, name: string) => listOf(page).getByRole('button', { name: new RegExp(name) });

async function member(ownerToken: string, role: 'Admin' | 'Agent', name: string): Promise<{ token: string; id: number }> {
  const team = await apiCall<{ roles: { id: number; name: string }[] }>('GET', '/api/vms/team', { token: ownerToken });
  const email = uniqueEmail(role.toLowerCase());
  const res = await apiCall<{ data: { id: number } }>('POST', '/api/vms/team', {
    token: ownerToken,
    body: { name, email, password: PASSWORD, role_id: team.body.roles.find((r) => r.name === role)!.id },
  });
  if (res.status !== 201 && res.status !== 200) throw new Error(`member: ${res.status} ${JSON.stringify(res.body)}`);
  return { token: await login(email, PASSWORD), id: res.body.data.id };
}

/** A team reply (the console's call: not under the widget's per-visitor budget). */
async function agentSays(token: string, visitorId: string, text: string): Promise<void> {
  const form = new FormData();
  form.set('visitor_id', visitorId);
  form.set('message', text);
  const res = await apiCall('POST', '/api/vms/messages', { token, form });
  if (res.status !== 201) throw new Error(`reply failed: ${res.status} ${JSON.stringify(res.body)}`);
}

async function openConsole(token: string, viewport = { width: 1400, height: 900 }) {
  const session = await newSession({ token, viewport });
  session.context.setDefaultNavigationTimeout(60_000);
  session.context.setDefaultTimeout(20_000);
  await session.page.goto(`${base()}/conversations`);
  await visible(session.page.getByText('Live: new messages appear as they arrive'));
  return session;
}

describe('inbox: a team at work', () => {
  it('two agents see assignment and status changes live; the side panel follows the visitor', async () => {
    const owner = await registerOwner('Olga Owner');
    const agent = await member(owner.token, 'Agent', 'Andy Agent');
    const { key } = await integrationSnippet(owner.token);
    const v = await createVisitor(key, { name: 'Vera Live', email: 'vera@example.com', time_zone: 'Asia/Tokyo' });
    await visitorSays(v, 'My parcel never came');

    const a = await openConsole(owner.token);
    const b = await openConsole(agent.token);
    await rowOf(a.page, 'Vera Live').click();
    await rowOf(b.page, 'Vera Live').click();
    const headerB = b.page.locator('.mc-chat-head');
    await visible(headerB.getByText('Unassigned'));

    // The owner assigns it to the Agent: the Agent's header says so without a reload.
    await a.page.getByLabel('Assignee').selectOption({ label: 'Andy Agent' });
    await visible(headerB.getByText('Assigned to you'));
    await visible(b.page.getByText('Olga Owner assigned the conversation to Andy Agent'));

    // The Agent resolves it: the owner's header turns to Reopen, with the system line.
    await headerB.getByRole('button', { name: 'Resolve', exact: true }).click();
    await visible(a.page.locator('.mc-chat-head').getByRole('button', { name: 'Reopen', exact: true }));
    await visible(a.page.getByText('Andy Agent resolved the conversation'));

    // The side panel (open by default on a wide screen): who, where, and the team's edit.
    const panel = a.page.getByRole('complementary', { name: 'Visitor details' });
    await visible(panel.getByText('vera@example.com'));
    const moved = await apiCall('PATCH', '/api/widget/visitor', { token: v.token, body: { page_url: 'https://shop.example/checkout' } });
    expect(moved.status).toBe(200);
    await visible(panel.getByTestId('ctx-current-page').getByText('https://shop.example/checkout'));
    await visible(panel.getByTestId('ctx-pages').getByText('https://shop.example/checkout'));
    await panel.getByRole('button', { name: 'Edit' }).click();
    await panel.getByLabel('Email').fill('not-an-email');
    await panel.getByRole('button', { name: 'Save' }).click();
    await visible(panel.getByText('Please enter a valid email address'));
    await panel.getByLabel('Email').fill('vera.new@example.com');
    await panel.getByRole('button', { name: 'Save' }).click();
    await visible(panel.getByText('vera.new@example.com'));
    // The Agent's console learns the new email live.
    await visible(b.page.locator('.mc-chat-head').getByText('vera.new@example.com'));
    // Past conversations: the resolved stretch.
    await visible(panel.getByText('Past conversations (1)'));
    // The visitor's local time, from the zone their widget reported (HH:MM in Tokyo).
    const tokyo = new Intl.DateTimeFormat('en-GB', { timeZone: 'Asia/Tokyo', hour: '2-digit', minute: '2-digit' });
    const shown = panel.getByText(/^\d\d:\d\d \(Asia\/Tokyo\)$/);
    await visible(shown);
    expect([0, 60_000].map((ms) => `${tokyo.format(Date.now() - ms)} (Asia/Tokyo)`)).toContain(await shown.textContent());

    expect(a.pageErrors).toEqual([]);
    expect(b.pageErrors).toEqual([]);
    await a.context.close();
    await b.context.close();
  }, 180_000);

  it('loads older history on scroll up, and a search hit in a conversation not loaded opens at the message', async () => {
    const owner = await registerOwner('Hana History');
    const { key } = await integrationSnippet(owner.token);
    // Olive: a 120-message history whose first message is the one searched for.
    const old = await createVisitor(key, { name: 'Olive Oldtimer' });
    await visitorSays(old, 'The serial number is ZEBRA-7731, please check');
    for (let i = 0; i < 119; i++) await agentSays(owner.token, old.id, `Olive reply ${i}`);
    // Sixty newer conversations push Olive off the first page of the list.
    for (let b = 0; b < 6; b++) {
      await Promise.all(Array.from({ length: 10 }, async (_, j) => visitorSays(await createVisitor(key, { name: `Newer ${b * 10 + j}` }), 'hi')));
    }
    // Larry, the newest: 120 messages too.
    const larry = await createVisitor(key, { name: 'Larry Longtalk' });
    await visitorSays(larry, 'Larry first words');
    for (let i = 0; i < 119; i++) await agentSays(owner.token, larry.id, `Larry reply ${i}`);

    const { page, pageErrors, context } = await openConsole(owner.token);
    await eventually(async () => (await listOf(page).getByRole('button', { name: /Newer \d+/ }).count()) >= 45, 'the first page');
    expect(await rowOf(page, 'Olive Oldtimer').count()).toBe(0);

    // Larry's thread opens at its latest page; scrolling up loads the older ones.
    await rowOf(page, 'Larry Longtalk').click();
    const log = page.getByRole('log', { name: 'Messages' });
    await visible(log.getByText('Larry reply 118', { exact: true }));
    const heldBefore = await log.locator('[data-message-id]').count();
    expect(await log.getByText('Larry first words').count()).toBe(0);
    for (let i = 0; i < 8 && (await log.getByText('Larry first words').count()) === 0; i++) {
      await log.evaluate((el) => {
        el.scrollTop = 0;
      });
      await page.waitForTimeout(600);
    }
    await visible(log.getByText('Larry first words'));
    expect(await log.locator('[data-message-id]').count()).toBeGreaterThan(heldBefore);

    // Search reaches Olive, who is not loaded, and opens her thread at that first message.
    await page.getByLabel('Search conversations').fill('zebra');
    const hits = page.getByRole('list', { name: 'Search results' });
    await visible(hits.locator('mark', { hasText: /zebra/i }));
    await hits.getByRole('button', { name: /Olive Oldtimer/ }).click();
    await visible(page.locator('.msg-found').getByText('The serial number is ZEBRA-7731, please check'));
    expect(pageErrors).toEqual([]);
    await context.close();
  }, 300_000);

  it('keyboard: next/previous, assign to me, resolve, and ? lists the shortcuts', async () => {
    const owner = await registerOwner('Kim Keys');
    const { key } = await integrationSnippet(owner.token);
    for (const name of ['Key One', 'Key Two', 'Key Three']) {
      await visitorSays(await createVisitor(key, { name }), `hello from ${name}`);
    }
    const { page, pageErrors, context } = await openConsole(owner.token);
    await visible(rowOf(page, 'Key Three'));
    await page.locator('body').click({ position: { x: 5, y: 5 } });

    // Newest first: j opens the first, j again the second, k back.
    await page.keyboard.press('j');
    await visible(page.getByRole('region', { name: 'Chat with Key Three' }));
    await page.keyboard.press('j');
    await visible(page.getByRole('region', { name: 'Chat with Key Two' }));
    await page.keyboard.press('k');
    await visible(page.getByRole('region', { name: 'Chat with Key Three' }));

    const header = page.locator('.mc-chat-head');
    await page.keyboard.press('a');
    await eventually(async () => (await header.getByLabel('Assignee').inputValue()) !== '', 'assigned to me');
    await page.keyboard.press('e');
    await visible(header.getByRole('button', { name: 'Reopen', exact: true }));
    await visible(page.getByText('Kim Keys resolved the conversation'));

    // No shortcut fires while typing.
    await page.keyboard.press('r');
    await page.keyboard.type('ej');
    await visible(header.getByRole('button', { name: 'Reopen', exact: true }));
    await page.keyboard.press('Escape');
    await page.locator('body').click({ position: { x: 5, y: 5 } });

    await page.keyboard.press('?');
    const dialog = page.getByRole('dialog');
    await visible(dialog.getByText('Next conversation'));
    await visible(dialog.getByText('Assign the conversation to me'));
    expect(pageErrors).toEqual([]);
    await context.close();
  }, 180_000);
});
