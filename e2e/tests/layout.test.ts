import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base, createVisitor, integrationSnippet, type Owner, registerOwner, type Visitor, visitorSays } from '../support/api';
import { closeBrowser, newSession, visible } from '../support/browser';
import { pixelAt } from '../support/png';

afterAll(closeBrowser);

/** Issue 12 items 15 and 16: small screens, and the chat view's own scrolling. */

const WIDTHS = [320, 375, 768, 1280];
const PUBLIC_ROUTES = ['/', '/register', '/login', '/terms', '/privacy', '/features', '/pricing', '/testimonials'];
const APP_ROUTES = ['/dashboard', '/conversations', '/visitors', '/chatbots', '/integrations', '/team', '/documentation', '/subscription', '/settings', '/widget-settings', '/greetings', '/account-info'];
const LONG_TEXT = 'A long question without many breaks, to see how the preview is cut in the conversation list on a small phone screen';

let owner: Owner;
let talker: Visitor;

beforeAll(async () => {
  owner = await registerOwner('Maximilian Alexander Layout-Wide');
  const { key } = await integrationSnippet(owner.token);
  talker = await createVisitor(key, { name: 'Bartholomew Featherstonehaugh-Smythe', email: 'bartholomew.featherstonehaugh@a-very-long-company-domain.example.com' }, '8.8.8.8');
  for (let i = 0; i < 14; i++) await visitorSays(talker, i === 13 ? LONG_TEXT : `Message number ${i + 1}`);
  const other = await createVisitor(key, { name: 'Ann', email: 'ann@example.com' });
  await visitorSays(other, 'Hi');
});

/** How far the page scrolls sideways (0 when it does not), and the widest offenders. */
async function sideways(page: Page): Promise<{ extra: number; offenders: string[] }> {
  return page.evaluate(() => {
    const vw = document.documentElement.clientWidth;
    const offenders: string[] = [];
    for (const el of document.querySelectorAll('body *')) {
      const r = el.getBoundingClientRect();
      const parent = el.parentElement?.getBoundingClientRect();
      if (r.width && r.right > vw + 1 && (!parent || parent.right <= vw + 1)) offenders.push(`${el.tagName.toLowerCase()}.${String(el.getAttribute('class') ?? '')} right=${Math.round(r.right)}`);
    }
    return { extra: document.documentElement.scrollWidth - vw, offenders: offenders.slice(0, 5) };
  });
}

async function settle(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle', { timeout: 5000 }).catch(() => undefined);
  await page.waitForTimeout(300);
}

describe('item 15: no page scrolls sideways', () => {
  // One test per width: each visits every route (about 25 s), within the test timeout on a busy CI machine.
  it.each(WIDTHS)('at %i px, on every route, with long names and messages', async (width) => {
    const failures: string[] = [];
    const viewport = { width, height: width < 1024 ? 740 : 860 };
    const signedOut = await newSession({ viewport });
    for (const route of PUBLIC_ROUTES) {
      await signedOut.page.goto(`${base()}${route}`);
      await settle(signedOut.page);
      const s = await sideways(signedOut.page);
      if (s.extra > 0) failures.push(`${width} ${route}: ${s.extra}px ${s.offenders.join(', ')}`);
    }
    await signedOut.context.close();

    const signedIn = await newSession({ viewport, token: owner.token });
    for (const route of [...APP_ROUTES, `/conversations?visitor=${talker.id}`]) {
      await signedIn.page.goto(`${base()}${route}`);
      await visible(signedIn.page.locator('main, form, h1').first());
      await settle(signedIn.page);
      const s = await sideways(signedIn.page);
      if (s.extra > 0) failures.push(`${width} ${route}: ${s.extra}px ${s.offenders.join(', ')}`);
    }
    expect(signedIn.pageErrors).toEqual([]);
    await signedIn.context.close();
    expect(failures).toEqual([]);
  });
});

describe('item 15: a phone at 375x740 and the desktop', () => {
  it('the conversation list shows whole times, cut previews with "..." and the unread badge; compact header; composer on screen', async () => {
    const { key } = await integrationSnippet(owner.token);
    const unread = await createVisitor(key, { name: 'Zebedee Featherstonehaugh-Unread', email: 'zebedee@a-very-long-company-domain.example.com' });
    await visitorSays(unread, 'First');
    await visitorSays(unread, LONG_TEXT);
    const viewport = { width: 375, height: 740 };
    const { page, pageErrors } = await newSession({ viewport, token: owner.token });
    await page.goto(`${base()}/conversations`);
    const list = page.getByRole('list', { name: 'Conversation list' });
    await visible(list);
    const item = list.getByRole('button', { name: /Zebedee/ });
    await visible(item);
    const fit = await item.evaluate((button) => {
      const box = button.getBoundingClientRect();
      const inside = (sel: string) => {
        const el = button.querySelector(sel);
        if (!el) return `${sel} missing`;
        const r = el.getBoundingClientRect();
        return r.left >= box.left - 0.5 && r.right <= box.right + 0.5 && r.right <= window.innerWidth ? 'ok' : `${sel} ${Math.round(r.left)}-${Math.round(r.right)} outside ${Math.round(box.left)}-${Math.round(box.right)}`;
      };
      const time = button.querySelector('.conv-time') as HTMLElement;
      const preview = button.querySelector('.conv-preview') as HTMLElement;
      return {
        time: inside('.conv-time'),
        timeWhole: time.scrollWidth <= time.clientWidth,
        unread: inside('.unread'),
        previewCut: preview.scrollWidth > preview.clientWidth,
        previewEllipsis: getComputedStyle(preview).textOverflow,
      };
    });
    expect(fit).toEqual({ time: 'ok', timeWhole: true, unread: 'ok', previewCut: true, previewEllipsis: 'ellipsis' });

    // The header (title, subtitle, search, bell, Logout) stays compact.
    const header = await page.locator('.page-header').boundingBox();
    expect(header!.y + header!.height).toBeLessThanOrEqual(200);
    await visible(page.getByRole('button', { name: 'Logout' }));

    // Open the chat: the message box and Send are on screen, with no page scroll.
    await item.click();
    const box = page.getByRole('textbox', { name: 'Message' });
    await visible(box);
    for (const el of [box, page.getByRole('button', { name: 'Send message' })]) {
      const r = await el.boundingBox();
      expect(r!.y + r!.height).toBeLessThanOrEqual(viewport.height);
    }
    expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeLessThanOrEqual(viewport.height);
    expect(pageErrors).toEqual([]);
    await page.context().close();
  });

  it('the desktop sidebar runs from the top to the bottom of the page (a full-page capture shows it to the end)', async () => {
    const { page } = await newSession({ viewport: { width: 1280, height: 860 }, token: owner.token });
    await page.goto(`${base()}/dashboard`);
    await visible(page.getByRole('heading', { name: 'Visitor History' }));
    await settle(page);
    const docHeight = await page.evaluate(() => document.documentElement.scrollHeight);
    expect(docHeight).toBeGreaterThan(900);
    // The sidebar's colour (#1e2235) at its left edge, near the top and at the very bottom of the page.
    const shot = await page.screenshot({ fullPage: true });
    const sidebar: [number, number, number] = [0x1e, 0x22, 0x35];
    expect(pixelAt(shot, 4, 4)).toEqual(sidebar);
    expect(pixelAt(shot, 4, docHeight - 3)).toEqual(sidebar);
    await page.context().close();
  });
});

describe('item 16: the chat view never takes its own scroll for the user\'s', () => {
  it('a visitor message arriving just after the agent\'s own send is shown (or counted), never silently below the fold', async () => {
    const { key } = await integrationSnippet(owner.token);
    const visitor = await createVisitor(key, { name: 'Rapid Reply' });
    for (let i = 0; i < 25; i++) await visitorSays(visitor, `Earlier line ${i + 1}`);
    const viewport = { width: 375, height: 740 };
    const { page, pageErrors } = await newSession({ viewport, token: owner.token });
    await page.goto(`${base()}/conversations?visitor=${visitor.id}`);
    const log = page.getByRole('log', { name: 'Messages' });
    await visible(log.getByText('Earlier line 25'));
    await settle(page);

    for (let round = 1; round <= 4; round++) {
      // The visitor answers the moment the view scrolls itself after the agent's send.
      await page.evaluate(
        ({ token, text }) => {
          const box = document.querySelector('.mc-messages')!;
          box.addEventListener(
            'scroll',
            () => {
              const form = new FormData();
              form.set('message', text);
              void fetch('/api/widget/messages', { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
            },
            { once: true },
          );
        },
        { token: visitor.token, text: `Visitor answer ${round}` },
      );
      await page.getByRole('textbox', { name: 'Message' }).fill(`Agent line ${round}`);
      await page.getByRole('button', { name: 'Send message' }).click();
      const answer = log.getByText(`Visitor answer ${round}`, { exact: true });
      await answer.waitFor({ state: 'attached' });
      await page.waitForTimeout(600);
      const seen = await answer.evaluate((el) => {
        const box = document.querySelector('.mc-messages')!.getBoundingClientRect();
        const r = el.getBoundingClientRect();
        return r.bottom <= box.bottom + 1 && r.top >= box.top - 1;
      });
      const counted = await page.getByRole('button', { name: /new message/ }).isVisible();
      expect(seen || counted, `round ${round}: the answer is below the fold with no "new message" button`).toBe(true);
      if (counted) await page.getByRole('button', { name: /new message/ }).click();
    }
    expect(pageErrors).toEqual([]);
    await page.context().close();
  });
});
