import type { BrowserContext, Page, WebSocketRoute } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { base, createVisitor, eventually, integrationSnippet, registerOwner, visitorSays } from '../support/api';
import { closeBrowser, hidden, newSession, visible } from '../support/browser';

afterAll(closeBrowser);

/**
 * Issue 16 "Never miss a chat". The tab's visibility is driven by an init script that overrides
 * document.visibilityState / document.hidden (`__setHidden(true)` fires visibilitychange), since
 * headless Chromium keeps every page visible. The context is granted the notifications
 * permission; the init script makes Notification.permission read 'default' until the page calls
 * requestPermission (as a fresh browser would), counts those calls, records every notification
 * the page constructs, and counts the chime's oscillators (two per sound).
 */
interface Recorded {
  requests: number;
  shown: { title: string; body: string; tag: string }[];
  oscillators: number;
}
declare global {
  interface Window {
    __setHidden: (hidden: boolean) => void;
    __alerts: Recorded;
    __notes: Notification[];
  }
}

function instrument(): void {
  let isHidden = false;
  Object.defineProperty(Document.prototype, 'visibilityState', { configurable: true, get: () => (isHidden ? 'hidden' : 'visible') });
  Object.defineProperty(Document.prototype, 'hidden', { configurable: true, get: () => isHidden });
  window.__setHidden = (h: boolean) => {
    isHidden = h;
    document.dispatchEvent(new Event('visibilitychange'));
  };
  window.__alerts = { requests: 0, shown: [], oscillators: 0 };
  window.__notes = [];
  const Real = window.Notification;
  let permission: NotificationPermission = 'default';
  class Recording extends Real {
    constructor(title: string, opts?: NotificationOptions) {
      super(title, opts);
      window.__alerts.shown.push({ title, body: opts?.body ?? '', tag: opts?.tag ?? '' });
      window.__notes.push(this);
    }
  }
  Object.defineProperty(Recording, 'permission', { configurable: true, get: () => permission });
  Object.defineProperty(Recording, 'requestPermission', {
    configurable: true,
    value: async () => {
      window.__alerts.requests++;
      permission = await Real.requestPermission();
      return permission;
    },
  });
  Object.defineProperty(window, 'Notification', { configurable: true, writable: true, value: Recording });
  const createOscillator = AudioContext.prototype.createOscillator;
  AudioContext.prototype.createOscillator = function (this: AudioContext) {
    window.__alerts.oscillators++;
    return createOscillator.call(this);
  };
}

async function instrumented(context: BrowserContext): Promise<void> {
  await context.grantPermissions(['notifications'], { origin: base() });
  await context.addInitScript(instrument);
}
const recorded = (page: Page) => page.evaluate(() => ({ ...window.__alerts, shown: [...window.__alerts.shown] }));
const setHidden = (page: Page, h: boolean) => page.evaluate((v) => window.__setHidden(v), h);
const connection = (page: Page) => page.locator('.conn-state');

describe('never miss a chat (issue 16)', () => {
  it('asks for notifications on a click, notifies while hidden, counts unread in the title, and the click opens the chat', async () => {
    const owner = await registerOwner('Nell Notify');
    const { key } = await integrationSnippet(owner.token);
    const ada = await createVisitor(key, { name: 'Ada Buyer' });

    const { page, context, pageErrors } = await newSession({ token: owner.token });
    await instrumented(context);
    await page.goto(`${base()}/settings`);
    await visible(connection(page).getByText('Live', { exact: true }));
    // Never asked on load: only the click asks.
    expect((await recorded(page)).requests).toBe(0);
    await page.getByRole('button', { name: 'Enable desktop notifications' }).click();
    await visible(page.getByText('Desktop notifications are allowed in this browser.'));
    expect((await recorded(page)).requests).toBe(1);

    // The agent looks elsewhere: a visitor's first message notifies once, with a sound.
    await setHidden(page, true);
    await visitorSays(ada, 'Need help with my order');
    const first = await eventually(async () => (await recorded(page)).shown[0], 'a desktop notification');
    expect(first).toMatchObject({ title: 'New chat from Ada Buyer', body: 'Need help with my order' });
    await eventually(async () => (await recorded(page)).oscillators === 2, 'one chime (two tones)');
    // Unread in the title and on the sidebar entry.
    await eventually(async () => (await page.title()).startsWith('(1) '), 'the title "(1) ..."');
    await visitorSays(ada, 'Are you there?');
    await eventually(async () => (await page.title()).startsWith('(2) '), 'the title "(2) ..."');
    await visible(page.getByRole('link', { name: /Conversations\s*2 unread/ }));
    expect((await recorded(page)).shown.map((n) => n.title)).toEqual(['New chat from Ada Buyer', 'New message from Ada Buyer']);

    // A visible tab gets no notification and no sound, only the bell.
    await setHidden(page, false);
    await visitorSays(ada, 'Hello again');
    await eventually(async () => (await page.title()).startsWith('(3) '), 'the title "(3) ..."');
    const bell = page.getByRole('button', { name: 'Notifications (3 new)' });
    await bell.click();
    const panel = page.getByRole('region', { name: 'Notifications' });
    await visible(panel.getByText('New chat from Ada Buyer'));
    expect(await panel.getByRole('listitem').count()).toBe(3);
    const after = await recorded(page);
    expect(after.shown).toHaveLength(2);
    expect(after.oscillators).toBe(4);
    await panel.getByRole('button', { name: 'Mark all read' }).click();
    await visible(panel.getByText('No new notifications'));
    await visible(page.getByRole('button', { name: 'Notifications', exact: true }));

    // Clicking the notification opens that conversation; reading it clears the title.
    await page.evaluate(() => window.__notes[0]!.dispatchEvent(new Event('click')));
    await page.waitForURL((u) => u.pathname === '/conversations' && u.searchParams.get('visitor') === ada.id);
    const chat = page.getByRole('region', { name: 'Chat with Ada Buyer' });
    await visible(chat.getByRole('log', { name: 'Messages' }).getByText('Hello again'));
    await eventually(async () => !(await page.title()).startsWith('('), 'the title without an unread count');
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('with two hidden console tabs, one notification and one sound per message', async () => {
    const owner = await registerOwner('Tess Tabs');
    const { key } = await integrationSnippet(owner.token);
    const bo = await createVisitor(key, { name: 'Bo Twice' });

    const { page: one, context, pageErrors } = await newSession({ token: owner.token });
    await instrumented(context);
    await one.goto(`${base()}/dashboard`);
    const two = await context.newPage();
    await two.goto(`${base()}/visitors`);
    for (const p of [one, two]) {
      await visible(connection(p).getByText('Live', { exact: true }));
      await p.evaluate(() => Notification.requestPermission());
      await setHidden(p, true);
    }

    await visitorSays(bo, 'First question');
    await visitorSays(bo, 'Second question');
    const total = async () => {
      const [a, b] = [await recorded(one), await recorded(two)];
      return { titles: [...a.shown, ...b.shown].map((n) => n.title), oscillators: a.oscillators + b.oscillators };
    };
    await eventually(async () => (await total()).titles.length >= 2, 'two notifications');
    // Both tabs heard both events (their titles count them); give a duplicate time to show up.
    for (const p of [one, two]) await eventually(async () => (await p.title()).startsWith('(2) '), 'the title "(2) ..." in each tab');
    await new Promise((r) => setTimeout(r, 1500));
    const seen = await total();
    expect(seen.titles.sort()).toEqual(['New chat from Bo Twice', 'New message from Bo Twice']);
    expect(seen.oscillators).toBe(4);

    // One tab comes to the front: nothing more pops up, in either tab.
    await setHidden(two, false);
    await visitorSays(bo, 'Third question');
    for (const p of [one, two]) await eventually(async () => (await p.title()).startsWith('(3) '), 'the title "(3) ..." in each tab');
    await new Promise((r) => setTimeout(r, 1000));
    expect((await total()).titles).toHaveLength(2);
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('shows "Reconnecting..." while the socket is cut, then "Live" with the missed message', async () => {
    const owner = await registerOwner('Remy Reconnect');
    const { key } = await integrationSnippet(owner.token);
    const cy = await createVisitor(key, { name: 'Cy Offline' });
    await visitorSays(cy, 'Before the cut');

    const { page, context, pageErrors } = await newSession({ token: owner.token });
    // The cut: the browser goes offline (new connections fail at once, as with a server that is
    // gone) and the console sockets open at that moment are closed on both sides through a
    // WebSocket route that otherwise passes everything through.
    const open: WebSocketRoute[] = [];
    await page.routeWebSocket(/\/socket\.io\//, (ws) => {
      ws.connectToServer();
      open.push(ws);
    });
    await page.goto(`${base()}/conversations?visitor=${cy.id}`);
    const log = page.getByRole('region', { name: 'Chat with Cy Offline' }).getByRole('log', { name: 'Messages' });
    await visible(log.getByText('Before the cut'));
    await visible(connection(page).getByText('Live', { exact: true }));
    expect(await page.getByText('Reconnecting...').count()).toBe(0);

    await context.setOffline(true);
    for (const ws of open.splice(0)) await ws.close().catch(() => undefined);
    await visible(page.getByRole('alert').getByText('Reconnecting...'));
    await visitorSays(cy, 'Sent while you were away');
    await new Promise((r) => setTimeout(r, 1500));
    await visible(page.getByRole('alert').getByText('Reconnecting...'));

    await context.setOffline(false);
    await visible(connection(page).getByText('Live', { exact: true }), 20_000);
    await hidden(page.getByText('Reconnecting...'));
    await visible(log.getByText('Sent while you were away'), 5000);
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
