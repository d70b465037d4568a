/**
 * The loader a business pastes into its site:
 *   <script src="https://HOST/widget.js" data-widget="KEY" async></script>
 * Tiny and async; it never blocks or throws into the host page. It queues `Parley(...)` calls,
 * shows the launcher bubble as soon as the settings arrive, and imports the chat UI (a
 * content-hashed, long-cached module) once the page is idle, on first click, or on
 * `Parley('open')`. It reports load / error for the integration metrics (the UI reports connect).
 */
import { isRtl, widgetLanguage } from './lang.js';
import { CHAT_ICON, LAUNCHER_CSS } from './launcherCss.js';
import type { Command, EventKind, LoaderContext, PublicSettings } from './types.js';

/** Replaced at build time with the hashed UI file name (build.mjs). */
declare const __UI_FILE__: string;
/** Replaced at build time with the language modules' hash (build.mjs). */
declare const __LANG_HASH__: string;

interface ParleyFn {
  (...args: unknown[]): void;
  q?: ArrayLike<unknown>[];
  /** Set once a loader runs, so a snippet pasted twice loads one widget. */
  v?: 1;
}

declare global {
  interface Window {
    Parley?: ParleyFn;
  }
}

(() => {
  try {
    const script = document.currentScript as HTMLScriptElement | null;
    const key = script?.dataset.widget;
    const previous = window.Parley;
    if (!script || !key || previous?.v) return;
    const base = new URL(script.src).origin;
    // Host pages may have queued calls with a stub before this script arrived: keep them.
    const queue: Command[] = Array.from(previous?.q ?? [], (args) => Array.from(args) as Command);
    const loadId = Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => (b + 256).toString(16).slice(1)).join('');
    const report = (kind: EventKind, detail?: string) => {
      fetch(`${base}/api/widget/events?unique_code=${encodeURIComponent(key)}`, {
        method: 'POST',
        // Sent as text/plain (fetch's default for a string): a CORS "simple" request, no preflight.
        body: JSON.stringify({ unique_code: key, load_id: loadId, kind, detail: detail?.slice(0, 500) }),
        keepalive: true,
      }).catch(() => {});
    };
    let ctx: LoaderContext | undefined;
    let loading: Promise<void> | undefined;
    const loadUi = () => {
      if (!ctx || loading) return;
      const c = ctx;
      loading = import(/* @vite-ignore */ `${base}/widget/${__UI_FILE__}`)
        .then((m: { boot: (c: LoaderContext) => Promise<void> }) => m.boot(c))
        .catch((e: unknown) => report('error', `ui: ${e}`));
    };
    const parley: ParleyFn = (...args) => {
      try {
        const cmd = args as Command;
        if (ctx?.run) return ctx.run(cmd);
        queue.push(cmd);
        if (cmd[0] === 'open') loadUi();
      } catch {
        // A bad call from the host page must not break it.
      }
    };
    parley.v = 1;
    window.Parley = parley;
    report('load');

    fetch(`${base}/api/widget-settings?unique_code=${encodeURIComponent(key)}`)
      .then((r) => (r.ok ? r.json() : Promise.reject(`settings ${r.status}`)))
      .then((body: { data: PublicSettings }) => {
        const host = document.createElement('parley-widget');
        // Picked here, so a right-to-left page has its launcher on the left before the UI arrives.
        const lang = widgetLanguage(body.data.language);
        if (isRtl(lang)) host.dir = 'rtl';
        const root = host.attachShadow({ mode: 'open' });
        root.innerHTML = `<style>${LAUNCHER_CSS}</style><button class="l" type="button" aria-label="Open chat" aria-expanded="false">${CHAT_ICON}</button>`;
        const launcher = root.querySelector('button') as HTMLButtonElement;
        launcher.style.background = body.data.color;
        // The launcher's name in the visitor's language before the UI arrives (the UI imports the same module).
        if (lang !== 'en')
          import(/* @vite-ignore */ `${base}/widget/lang/${lang}-${__LANG_HASH__}.js`).then((m: { default: string }) => launcher.setAttribute('aria-label', m.default.split('|')[0] as string), () => {});
        ctx = { key, base, settings: body.data, lang, root, launcher, queue, report };
        launcher.onclick = () => parley('open');
        // Hover or focus means a click is likely: start fetching the UI right away.
        launcher.onpointerenter = launcher.onfocus = loadUi;
        // An async script may run before <body> exists.
        if (document.body) document.body.appendChild(host);
        else addEventListener('DOMContentLoaded', () => document.body.appendChild(host));
        if (queue.some((c) => c[0] === 'open')) return loadUi();
        const idle = () => (window.requestIdleCallback ?? ((f: () => void) => setTimeout(f, 1)))(loadUi, { timeout: 4000 });
        if (document.readyState === 'complete') idle();
        else addEventListener('load', idle);
      })
      .catch((e: unknown) => report('error', `${e}`));
  } catch {
    // Never throw into the host page.
  }
})();
