/**
 * The widget's menu (issue 13), loaded when the visitor first opens it: "Email me the transcript",
 * offered once the visitor's email is known. The server sends it at once when the conversation is
 * resolved, else when it is; the answer says which.
 */
import type { TranscriptRequestDto } from '@parley/shared';
import type { h as H } from './dom.js';
import type { Texts } from './i18n.js';
import { type Caller, visitorCall } from './visitorCall.js';

export interface MenuHost extends Caller {
  h: typeof H;
  texts: Texts;
  root: ShadowRoot;
  /** The header's menu button (aria-expanded follows the menu). */
  button: HTMLButtonElement;
  show(el: HTMLElement | null): void;
}

const CSS =
  '.mn{margin:8px 12px;padding:6px;border:1px solid #e5e7eb;border-radius:12px;background:#fff}' +
  '.mn button{display:block;width:100%;text-align:start;border:0;background:none;padding:8px 10px;border-radius:8px;cursor:pointer;font:inherit;color:#111}' +
  '.mn button:hover,.mn button:focus-visible{background:#f3f4f6;outline:2px solid #1a73e8}.mn p{margin:6px 10px;font-size:14px}.mn .er{color:#b91c1c}';

let current: HTMLElement | null = null;

function close(host: MenuHost, focusButton: boolean): void {
  current = null;
  host.button.setAttribute('aria-expanded', 'false');
  host.show(null);
  if (focusButton) host.button.focus();
}

export function toggleMenu(host: MenuHost): void {
  const { h, texts: t } = host;
  if (current?.isConnected) {
    close(host, false);
    return;
  }
  if (!host.root.querySelector('style[data-mn]')) host.root.append(h('style', { 'data-mn': '' }, CSS));
  const item = h('button', { type: 'button', role: 'menuitem' }, t.transcript);
  const menu = h('div', { class: 'mn', role: 'menu', 'aria-label': t.menu }, item);
  menu.onkeydown = (e) => {
    if (e.key === 'Escape') {
      e.stopPropagation(); // the panel's Escape closes the panel; here only the menu
      close(host, true);
    }
  };
  item.onclick = () => {
    item.disabled = true;
    visitorCall<TranscriptRequestDto>(host, 'POST', '/api/widget/transcript').then(
      (r) => {
        const note = h('div', { class: 'mn' }, h('p', { role: 'status' }, r.status === 'sent' ? t.transcriptSent : t.transcriptLater));
        current = note;
        host.button.setAttribute('aria-expanded', 'false');
        host.show(note);
        setTimeout(() => current === note && close(host, false), 6000);
      },
      (err: Error) => {
        item.disabled = false;
        return (host.say ? host.say(err) : Promise.resolve(err.message)).then((words) => {
          menu.querySelector('.er')?.remove();
          menu.append(h('p', { class: 'er', role: 'alert' }, words));
        });
      },
    );
  };
  current = menu;
  host.button.setAttribute('aria-expanded', 'true');
  host.show(menu);
  item.focus();
}
