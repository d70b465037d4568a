/**
 * Proactive messages (issue 13), loaded after the UI on each page: the account's triggers (page
 * pattern, seconds on the page, Nth page of the visit, returning visitor). When one is due the
 * server records it first (POST .../fire: once per visitor per day, 409 otherwise), then the
 * message shows as a bubble above the launcher, or in the opened panel.
 */
import type { TriggerDto } from '@parley/shared';
import { urlMatches } from '../../../shared/src/proactive.js';
import type { h as H } from './dom.js';
import type { Texts } from './i18n.js';
import { type Caller, visitorCall } from './visitorCall.js';

export interface ProactiveHost extends Caller {
  key: string;
  h: typeof H;
  texts: Texts;
  root: ShadowRoot;
  /** The business's name and avatar URL (absolute), used when the trigger names no sender. */
  sender: { name: string; avatar: string };
  /** Creates the visitor if needed (a fire is recorded per visitor). */
  ensureVisitor(): Promise<void>;
  isOpen(): boolean;
  open(): void;
  show(el: HTMLElement | null): void;
}

const CSS =
  '.pb{position:fixed;right:20px;bottom:88px;z-index:2147483000;max-width:300px;display:flex;gap:8px;align-items:flex-start;background:#fff;color:#1f2328;' +
  'border-radius:14px;padding:12px;box-shadow:0 8px 32px rgba(0,0,0,.22);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}' +
  '.pb button.m{all:unset;cursor:pointer;flex:1}.pb button.m:focus-visible,.pb .k:focus-visible{outline:2px solid #1a73e8}.pb b{display:block}' +
  '.pb .k{border:0;background:none;cursor:pointer;font-size:18px;line-height:1;color:#555;padding:0 2px}' +
  '.pa{width:32px;height:32px;border-radius:50%;object-fit:cover;flex:none}.pc{margin:8px 12px;padding:12px;border-radius:12px;background:#f3f4f6;display:flex;gap:8px}';

/** Pages seen in this visit (this tab's session), counted once per page load. */
function pageOfVisit(key: string): number {
  try {
    const k = `parley:${key}:pages`;
    const n = Number(sessionStorage.getItem(k) ?? '0') + 1;
    sessionStorage.setItem(k, String(n));
    return n;
  } catch {
    return 1;
  }
}

export async function startProactive(host: ProactiveHost): Promise<void> {
  const page = pageOfVisit(host.key);
  const triggers = await visitorCall<TriggerDto[]>(host, 'GET', `/api/widget/triggers?unique_code=${encodeURIComponent(host.key)}`);
  let shown = false; // one proactive message per page
  for (const t of triggers) {
    if (!urlMatches(t.url_pattern, location.href) || (t.nth_page && page < t.nth_page)) continue;
    setTimeout(() => {
      if (shown) return;
      shown = true;
      fire(host, t).catch(() => {
        shown = false; // not shown (already today, or a failure): a later trigger may be
      });
    }, Math.max(0, t.seconds_on_page * 1000 - performance.now())); // seconds since the page loaded
  }
}

async function fire(host: ProactiveHost, t: TriggerDto): Promise<void> {
  await host.ensureVisitor();
  await visitorCall(host, 'POST', `/api/widget/triggers/${t.id}/fire`);
  const { h } = host;
  if (!host.root.querySelector('style[data-pb]')) host.root.append(h('style', { 'data-pb': '' }, CSS));
  const name = t.sender_name || host.sender.name;
  const avatarUrl = t.sender_avatar ? (t.sender_avatar.startsWith('/') ? host.base + t.sender_avatar : t.sender_avatar) : host.sender.avatar;
  const avatar = () => (avatarUrl ? h('img', { class: 'pa', src: avatarUrl, alt: '' }) : undefined);
  const card = () => h('div', { class: 'pc', role: 'status' }, avatar(), h('div', {}, h('b', {}, name), t.message));
  if (t.open_panel || host.isOpen()) {
    host.open();
    host.show(card());
    return;
  }
  const message = h('button', { type: 'button', class: 'm' }, h('b', {}, name), t.message);
  const dismiss = h('button', { type: 'button', class: 'k', 'aria-label': host.texts.notNow, title: host.texts.notNow }, '×');
  const bubble = h('div', { class: 'pb', role: 'status' }, avatar(), message, dismiss);
  dismiss.onclick = () => bubble.remove();
  message.onclick = () => {
    bubble.remove();
    host.open();
    host.show(card());
  };
  host.root.append(bubble);
}
