import type { Browser, BrowserContext, Dialog, Locator, Page } from 'playwright-core';
import { base } from './api';
import { launchBrowser } from './chromium';

export interface Session {
  context: BrowserContext;
  page: Page;
  /** Browser dialogs (alert/confirm) seen so far, in order; each is accepted. */
  dialogs: { type: string; message: string }[];
  /** Uncaught page errors (a journey fails on them at the end). */
  pageErrors: string[];
}

let browser: Browser | undefined;

export async function getBrowser(): Promise<Browser> {
  browser ??= await launchBrowser();
  return browser;
}

export async function closeBrowser(): Promise<void> {
  await browser?.close();
  browser = undefined;
}

/** A fresh browser context (own localStorage) and page; dialogs are recorded and accepted. */
export async function newSession(opts: { viewport?: { width: number; height: number }; token?: string; isMobile?: boolean } = {}): Promise<Session> {
  const b = await getBrowser();
  const context = await b.newContext({ viewport: opts.viewport ?? { width: 1280, height: 860 }, isMobile: opts.isMobile, hasTouch: opts.isMobile, locale: 'en-US' });
  context.setDefaultTimeout(10_000);
  context.setDefaultNavigationTimeout(20_000);
  const page = await context.newPage();
  const session: Session = { context, page, dialogs: [], pageErrors: [] };
  page.on('dialog', (d: Dialog) => {
    session.dialogs.push({ type: d.type(), message: d.message() });
    void d.accept().catch(() => undefined);
  });
  page.on('pageerror', (e) => session.pageErrors.push(String(e)));
  if (opts.token) await useToken(page, opts.token);
  return session;
}

/** Stores a session token the way the console does (localStorage 'auth_token'). */
export async function useToken(page: Page, token: string): Promise<void> {
  await page.goto(`${base()}/login`);
  await page.evaluate((t) => localStorage.setItem('auth_token', t), token);
}

export async function tokenOf(page: Page): Promise<string | null> {
  return page.evaluate(() => localStorage.getItem('auth_token'));
}

export async function visible(locator: Locator, timeout = 10_000): Promise<Locator> {
  await locator.first().waitFor({ state: 'visible', timeout });
  return locator.first();
}

export async function hidden(locator: Locator, timeout = 10_000): Promise<void> {
  await locator.first().waitFor({ state: 'hidden', timeout });
}

export async function waitForPath(page: Page, pathname: string, timeout = 15_000): Promise<void> {
  await page.waitForURL((u) => u.pathname === pathname, { timeout });
}

export const pathOf = (page: Page) => new URL(page.url()).pathname;

/** Text of a field's error line, found through the input's aria-describedby. */
export async function fieldError(page: Page, label: string | RegExp): Promise<string> {
  const input = page.getByLabel(label, { exact: typeof label === 'string' }).first();
  const ids = (await input.getAttribute('aria-describedby')) ?? '';
  for (const id of ids.split(/\s+/).filter(Boolean)) {
    const el = page.locator(`[id="${id}"]`);
    if ((await el.count()) && (await el.getAttribute('role')) === 'alert') return ((await el.textContent()) ?? '').trim();
  }
  return '';
}
