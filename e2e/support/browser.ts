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
/** Per page, what a failed wait reports besides the page's text. */
const diagnostics = new WeakMap<Page, { session: Session; console: string[] }>();

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
  const lines: string[] = [];
  page.on('console', (m) => {
    lines.push(`${m.type()}: ${m.text()}`.slice(0, 300));
    if (lines.length > 30) lines.shift();
  });
  diagnostics.set(page, { session, console: lines });
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
  try {
    await locator.first().waitFor({ state: 'visible', timeout });
  } catch (err) {
    throw new Error(`${(err as Error).message}\n---- what the page showed ----\n${await shownText(locator.page())}`);
  }
  return locator.first();
}

/** The page's visible text, shadow roots (the widget's panel) included, for a failed wait's message. */
async function shownText(page: Page): Promise<string> {
  return page
    .evaluate(() => {
      const texts: string[] = [document.body?.innerText ?? ''];
      const walk = (root: Document | ShadowRoot) => {
        for (const el of root.querySelectorAll('*')) {
          if (!el.shadowRoot) continue;
          const inner = el.shadowRoot.querySelector('[role=dialog]') ?? el.shadowRoot.firstElementChild;
          const fields = [...el.shadowRoot.querySelectorAll('textarea, input')].map((f) => `[${f.getAttribute('aria-label') ?? f.tagName}=${JSON.stringify((f as HTMLInputElement).value)}]`);
          texts.push(`(shadow ${el.tagName.toLowerCase()}) ${(inner as HTMLElement | null)?.innerText ?? ''} ${fields.join(' ')}`);
          walk(el.shadowRoot);
        }
      };
      walk(document);
      return texts.join('\n').slice(0, 4000);
    })
    .catch((e: unknown) => `(could not read the page: ${String(e)})`)
    .then((text) => {
      const d = diagnostics.get(page);
      if (!d) return text;
      return `${text}\n---- page errors ----\n${d.session.pageErrors.join('\n') || '(none)'}\n---- console (last 30) ----\n${d.console.join('\n') || '(none)'}`;
    });
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
