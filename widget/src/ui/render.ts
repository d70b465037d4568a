/**
 * The chat UI's view: header, message list, typing line, composer or offline form, footer, and the
 * launcher's badge. No network code here, so the console's onboarding preview renders the very
 * same UI (renderPreview, built to dist/preview.js) from the settings being edited.
 */
import { CHAT_ICON, CHAT_PATH, LAUNCHER_CSS } from '../launcherCss.js';
import type { PublicSettings } from '../types.js';
import { ICONS, absolute, h, icon, linkify, textOn } from './dom.js';
import { EN, isRtl, parseTexts, plural, type Texts } from './i18n.js';
import { DOC_ICON, FILES_CSS, acceptDropAndPaste, fileChip, isDocumentMessage } from './files.js';
import type { ChatMessage } from './merge.js';
import { DOCUMENT_ACCEPT } from '../shared.js';
import { PANEL_CSS, PREVIEW_CSS } from './styles.js';
import type * as AiAnswer from './aiAnswer.js';

export interface ViewHandlers {
  toggle(open: boolean): void;
  send(text: string): void;
  attach(file: File): void;
  retry(m: ChatMessage): void;
  offline(email: string, message: string): void;
  typing(): void;
  /** Issue 17: "Was this helpful?" on an assistant's answer, and "Talk to a person". */
  vote(messageId: number, vote: 'helpful' | 'not_helpful'): void;
  handover(): void;
}

export interface ViewOptions {
  base: string;
  settings: PublicSettings;
  /** Language code (picked by the caller) and its texts; English by default. */
  lang?: string;
  texts?: Texts;
  /** The loader's bubble, taken over; created when absent (preview). */
  launcher?: HTMLButtonElement;
  /** The console's preview: always open, inert (disabled composer, close does nothing), no launcher,
   *  both greetings at once and the onboarding's fallbacks for empty fields (given by renderPreview,
   *  so the visitor's UI chunk carries neither these texts nor their styles). */
  preview?: PreviewTexts;
  handlers?: Partial<ViewHandlers>;
}

const noop = () => {};

/** The footer credit: the server sends '' when the owner removed it (and the plan allows that); an
 *  older server without the field still gets the credit. '' means no footer at all. */
const DEFAULT_CREDIT = 'Powered by Parley';

export function creditOf(s: Pick<PublicSettings, 'powered_by'>): string {
  return typeof s.powered_by === 'string' ? s.powered_by : DEFAULT_CREDIT;
}

/** What the onboarding preview shows for empty fields (SPEC.md section 2; the console is English).
 *  Only the preview uses them: name, title and initial greeting are required by the server. */
const PREVIEW = { name: 'Hi there! 👋', title: "We're here to help", status: 'Typically replies in minutes', greeting: 'Hello!',
  followUp: 'How can we assist?', close: 'Close chat preview', input: 'Message (preview)', css: PREVIEW_CSS };
type PreviewTexts = typeof PREVIEW;

export class View {
  readonly t: Texts;
  readonly lang: string;
  open = false;
  private settings: PublicSettings;
  private readonly on: ViewHandlers;
  private readonly launcher: HTMLButtonElement;
  private readonly badge = h('span', { class: 'b', 'aria-hidden': 'true', hidden: true });
  private readonly panel: HTMLDivElement;
  private readonly header = h('div', { class: 'h' });
  private readonly list = h('div', { class: 'ls', role: 'log', 'aria-live': 'polite', tabindex: '0' });
  private readonly typingLine = h('div', { class: 't', 'aria-hidden': 'true' });
  /** Issue 13's lazily loaded cards (rating survey, transcript, proactive notes) go here, above the composer. */
  private readonly slot = h('div', { class: 'sl' });
  /** A place in the header, before the close button, for a feature's control (the transcript menu). */
  readonly headerExtra = h('span', { class: 'hx' });
  private readonly bottom = h('div');
  private readonly error = h('div', { class: 'e', role: 'alert' });
  private readonly input: HTMLTextAreaElement;
  private readonly composer: HTMLFormElement;
  private readonly footer = h('a', { class: 'f', target: '_blank', rel: 'noopener' });
  private rows = new Map<string, { el: HTMLElement; sig: string }>();
  private unread = 0;
  private offlineForm?: HTMLFormElement;
  /** The offline form's away text (issue 17: with when the team is back). */
  private awayLine?: HTMLElement;
  /** Issue 17: the assistant answer's view (aiAnswer.ts), loaded when the first answer arrives. */
  private ai?: { mod: typeof AiAnswer; t: AiAnswer.AiTexts };
  /** Issue 17: the visitor asked for a person: answers no longer offer it. */
  private handedOver = false;

  constructor(
    readonly root: ShadowRoot,
    private readonly opts: ViewOptions,
  ) {
    this.settings = opts.settings;
    this.lang = opts.lang ?? 'en';
    this.t = opts.texts ?? parseTexts(EN);
    this.on = { toggle: noop, send: noop, attach: noop, retry: noop, offline: noop, typing: noop, vote: noop, handover: noop, ...opts.handlers };
    const t = this.t;

    this.input = h('textarea', { rows: '1', 'aria-label': t.type, placeholder: t.type, maxlength: '5000' });
    const file = h('input', { type: 'file', accept: 'image/png,image/jpeg,image/gif,image/webp', hidden: true, tabindex: '-1' });
    const attach = h('button', { type: 'button', class: 'ic', 'aria-label': t.attach, title: t.attach }, icon(ICONS.attach));
    // Issue 13: documents have their own control; drop and paste take either (files.ts).
    const doc = h('input', { type: 'file', accept: DOCUMENT_ACCEPT, hidden: true, tabindex: '-1' });
    const attachDoc = h('button', { type: 'button', class: 'ic', 'aria-label': t.attachFile, title: t.attachFile }, icon(DOC_ICON));
    const send = h('button', { type: 'submit', class: 'ic s', 'aria-label': t.send, title: t.send }, icon(ICONS.send));
    this.composer = h('form', { class: 'c' }, attach, file, attachDoc, doc, this.input, send);
    const pv = opts.preview;
    if (pv) {
      for (const el of [attach, attachDoc, this.input, send]) el.disabled = true;
      this.input.setAttribute('aria-label', pv.input);
    }
    attach.onclick = () => file.click();
    attachDoc.onclick = () => doc.click();
    for (const input of [file, doc]) {
      input.onchange = () => {
        const f = input.files?.[0];
        input.value = '';
        if (f) this.on.attach(f);
      };
    }
    this.composer.onsubmit = (e) => {
      e.preventDefault();
      const text = this.input.value.trim();
      if (!text) return;
      this.input.value = '';
      this.grow();
      this.on.send(text);
    };
    this.input.onkeydown = (e) => {
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        this.composer.requestSubmit();
      }
    };
    this.input.oninput = () => {
      this.grow();
      this.on.typing();
    };

    this.panel = h('div', { class: 'p', role: 'dialog', id: 'parley-panel', dir: isRtl(this.lang) ? 'rtl' : 'ltr', lang: this.lang, hidden: !opts.preview },
      this.header, this.list, this.typingLine, this.slot, this.error, this.bottom, this.footer);
    if (!opts.preview) acceptDropAndPaste(this.panel, this.input, (f) => this.on.attach(f));
    this.panel.onkeydown = (e) => {
      if (e.key === 'Escape' && !opts.preview) this.setOpen(false, true);
    };

    this.launcher = opts.launcher ?? h('button', { class: 'l pvl', type: 'button' });
    if (!opts.launcher) this.launcher.innerHTML = CHAT_ICON;
    this.launcher.append(this.badge);
    this.launcher.setAttribute('aria-controls', 'parley-panel');
    this.launcher.onclick = () => this.setOpen(!this.open, true);

    const wrap = h('div', { class: opts.preview ? 'w pv' : 'w' }, this.panel);
    root.append(h('style', {}, LAUNCHER_CSS + PANEL_CSS + FILES_CSS + (pv?.css ?? '')), wrap);
    this.applySettings(opts.settings);
    this.setOffline(!opts.settings.agent_online);
    this.setUnread(0);
  }

  applySettings(s: PublicSettings): void {
    this.settings = s;
    if (this.awayLine) this.awayLine.textContent = this.awayText();
    const host = this.root.host as HTMLElement;
    host.style.setProperty('--c', s.color);
    host.style.setProperty('--f', textOn(s.color));
    this.launcher.style.background = s.color;
    const pv = this.opts.preview;
    const name = this.name();
    const title = pv ? s.title.trim() || pv.title : s.title;
    const avatar = s.avatar_url
      ? h('img', { class: 'av', src: absolute(this.opts.base, s.avatar_url), alt: '' })
      : h('span', { class: 'av', 'aria-hidden': 'true' }, (s.name.trim()[0] ?? (pv ? '👋' : '?')).toUpperCase());
    const closeLabel = pv ? pv.close : this.t.close;
    const close = h('button', { type: 'button', class: 'x', 'aria-label': closeLabel, title: closeLabel }, icon(ICONS.close));
    close.onclick = pv ? noop : () => this.setOpen(false, true);
    const names = h('div', { class: 'hn' }, h('b', {}, name), title && h('span', {}, title), pv && h('span', { class: 'st' }, pv.status));
    this.header.replaceChildren(avatar, names, this.headerExtra, close);
    this.panel.setAttribute('aria-label', name || 'Chat');
    // The default credit in the visitor's language (issue 13); a custom credit as the server says it.
    const credit = creditOf(s) === DEFAULT_CREDIT ? this.t.poweredBy.replace('{name}', 'Parley') : creditOf(s);
    this.footer.textContent = credit;
    this.footer.setAttribute('href', this.opts.base || 'https://parley.chat');
    // Inline, because the panel's `.f{display:block}` would win over the [hidden] rule.
    this.footer.style.display = credit ? '' : 'none';
  }

  /** The name shown in the header and on agent greetings (the preview's fallback when empty). */
  private name(): string {
    const pv = this.opts.preview;
    return pv ? this.settings.name.trim() || pv.name : this.settings.name;
  }

  /** Opens or closes the panel; `user` moves focus the way a keyboard user expects. */
  setOpen(open: boolean, user = false): void {
    if (open === this.open) return;
    this.open = open;
    this.panel.hidden = !open;
    this.launcher.setAttribute('aria-expanded', String(open));
    this.launcher.replaceChildren(open ? icon(ICONS.down) : icon(CHAT_PATH), this.badge);
    this.on.toggle(open);
    if (open) {
      this.scrollDown();
      if (!this.opts.preview) (this.offlineForm?.querySelector('input') ?? this.input).focus({ preventScroll: true });
    } else if (user) this.launcher.focus();
  }

  setUnread(n: number): void {
    this.unread = n;
    this.badge.textContent = String(n);
    this.badge.hidden = n === 0;
    this.launcher.setAttribute('aria-label', n ? `${this.t.open} (${plural(this.t.unread, n, this.lang)})` : this.t.open);
  }

  get unreadCount(): number {
    return this.unread;
  }

  /** Offline form in place of the composer when no agent is online (or the account's chats are used
   *  up this month); `draft` fills its message box. */
  setOffline(offline: boolean, draft = ''): void {
    if (!offline) {
      // Already shown (the socket's presence push says "online" on every connect): putting it back
      // would take it out of the page first, and the focus with it: what the visitor types next is lost.
      if (this.composer.parentNode === this.bottom) return;
      // The team came online while the visitor wrote in the offline form: what they wrote moves to
      // the composer, and so does their focus.
      const box = this.offlineForm?.querySelector('textarea');
      const typing = !!box && this.root.activeElement?.closest('form') === this.offlineForm;
      if (box?.value && !this.input.value) this.input.value = box.value;
      this.offlineForm = this.awayLine = undefined;
      this.bottom.replaceChildren(this.composer);
      this.grow();
      if (typing) this.input.focus({ preventScroll: true });
      return;
    }
    if (this.offlineForm) {
      const box = this.offlineForm.querySelector('textarea');
      if (draft && box && !box.value) box.value = draft;
      return;
    }
    const t = this.t;
    const email = h('input', { type: 'email', required: true, autocomplete: 'email', maxlength: '254' });
    const text = h('textarea', { required: true, rows: '3', maxlength: '5000' });
    text.value = draft;
    this.awayLine = h('p', {}, this.awayText());
    const form = h('form', { class: 'o' }, this.awayLine, h('label', {}, t.email, email), h('label', {}, t.message, text), h('button', { type: 'submit' }, t.send));
    form.onsubmit = (e) => {
      e.preventDefault();
      this.on.offline(email.value.trim(), text.value.trim());
    };
    this.offlineForm = form;
    this.bottom.replaceChildren(form);
    // Switched while the visitor was typing (a refused chat): carry on in the form.
    if (draft && this.open && !this.opts.preview) email.focus({ preventScroll: true });
  }

  /** Issue 17: the answer view, once loaded (lazy.ts); `setMessages` next shows answers with it, and the away text says when the team is back. */
  setAi(mod: typeof AiAnswer): void {
    if (this.ai) return;
    this.ai = { mod, t: mod.aiTexts(this.lang) };
    this.root.append(h('style', {}, mod.AI_CSS));
    if (this.awayLine) this.awayLine.textContent = this.awayText();
  }

  /**
   * Issue 17: the away text, and outside business hours when the team is back ("We're back Monday
   * at 09:00.") in the visitor's language and own time, once the answer view's words are loaded.
   */
  private awayText(): string {
    const at = this.ai && this.settings.back_at ? new Date(this.settings.back_at) : null;
    return at && at.getTime() > Date.now() ? `${this.t.away} ${this.ai!.mod.backText(at, this.ai!.t, this.lang)}` : this.t.away;
  }

  /** Issue 17: a person was asked for; `setMessages` next drops "Talk to a person". */
  setHandedOver(): void {
    this.handedOver = true;
  }

  /** Shows a card of a lazily loaded feature above the composer (null clears it). */
  setSlot(el: HTMLElement | null): void {
    this.slot.replaceChildren(...(el ? [el] : []));
    if (el) this.scrollDown();
  }

  offlineSent(): void {
    this.bottom.replaceChildren(h('p', { class: 'o', role: 'status' }, this.t.thanks));
  }

  showError(message: string): void {
    this.error.textContent = message;
  }

  setTyping(name: string | null): void {
    this.typingLine.replaceChildren(...(name === null ? [] : [h('span', { class: 'd' }, h('i'), h('i'), h('i')), `${name} ${this.t.typing}`]));
  }

  /** Shows the conversation: greetings first, then messages in order; rows are reused by key.
   *  The preview shows both greetings at once (with fallbacks), as the visitor will meet them. */
  setMessages(messages: readonly ChatMessage[]): void {
    const s = this.settings;
    const pv = this.opts.preview;
    const name = this.name();
    const nearBottom = this.list.scrollHeight - this.list.scrollTop - this.list.clientHeight < 50;
    const items: { key: string; sig: string; build: () => HTMLElement }[] = [];
    const greeting = (key: string, text: string) => items.push({ key, sig: name + text, build: () => this.bubble(false, name, [text]) });
    if (pv) {
      greeting('g1', s.initial_greeting.trim() || pv.greeting);
      greeting('g2', s.follow_up_greeting.trim() || pv.followUp);
    } else if (s.initial_greeting) greeting('g1', s.initial_greeting);
    // Issue 17: once a person was asked for (a hand-over message, also after a reload), no more "Talk to a person".
    this.handedOver ||= messages.some((m) => m.ai?.handover);
    let asked = !!pv; // the preview already shows the follow-up
    for (const m of messages) {
      const key = m.client_id ? `c${m.client_id}` : `i${m.id}`;
      const ai = m.ai ? `${m.ai.vote}${this.handedOver}${!this.ai}` : '';
      items.push({ key, sig: `${m.id}${m.state}${m.error}${m.file_path}${ai}`, build: () => this.message(m) });
      // The follow-up greeting answers the visitor's first message (shown here, never stored).
      if (m.sender_type === 'visitor' && !asked && s.follow_up_greeting) greeting('g2', s.follow_up_greeting);
      if (m.sender_type === 'visitor') asked = true;
    }
    const seen = new Set<string>();
    items.forEach((item, i) => {
      seen.add(item.key);
      let row = this.rows.get(item.key);
      if (!row || row.sig !== item.sig) {
        const el = item.build();
        row?.el.replaceWith(el);
        row = { el, sig: item.sig };
        this.rows.set(item.key, row);
      }
      if (this.list.children[i] !== row.el) this.list.insertBefore(row.el, this.list.children[i] ?? null);
    });
    for (const [key, row] of this.rows) {
      if (!seen.has(key)) {
        row.el.remove();
        this.rows.delete(key);
      }
    }
    const last = messages[messages.length - 1];
    if (nearBottom || last?.sender_type === 'visitor') this.scrollDown();
  }

  private message(m: ChatMessage): HTMLElement {
    const mine = m.sender_type === 'visitor';
    const parts: (Node | string)[] = [];
    const src = m.local_url ?? (m.file_path ? absolute(this.opts.base, m.file_path) : '');
    if (isDocumentMessage(m)) parts.push(fileChip(this.opts.base, m));
    else if (src) parts.push(h('img', { src, alt: '', loading: 'lazy' }));
    if (m.message) parts.push(...linkify(m.message));
    const row = this.bubble(mine, mine ? '' : (m.author_name ?? this.settings.name), parts, m.created_at);
    // Issue 17: the assistant's answer shows as the assistant's, with its source and controls.
    if (m.sender_type === 'bot' && m.ai && m.id !== undefined && this.ai) this.ai.mod.decorate(row, m.id, m.ai, this.ai.t, this.on, this.handedOver, this.lang);
    if (m.state === 'pending') row.classList.add('pe');
    if (m.state === 'failed') {
      if (m.error) row.append(h('span', { class: 'r', role: 'note' }, m.error));
      else {
        const retry = h('button', { type: 'button', class: 'r' }, this.t.retry);
        retry.onclick = () => this.on.retry(m);
        row.append(retry);
      }
    }
    return row;
  }

  private bubble(mine: boolean, author: string, parts: (Node | string)[], at?: string): HTMLElement {
    const time = at ? new Date(at) : undefined;
    return h('div', { class: mine ? 'm v' : 'm' },
      author && h('span', { class: 'a' }, author),
      h('div', { class: 'bu', dir: 'auto' }, ...parts),
      time && !Number.isNaN(time.getTime()) && h('time', { class: 'tm', datetime: at }, time.toLocaleTimeString(this.lang, { hour: '2-digit', minute: '2-digit' })));
  }

  private grow(): void {
    this.input.style.height = 'auto';
    this.input.style.height = `${Math.min(this.input.scrollHeight, 120)}px`;
  }

  private scrollDown(): void {
    this.list.scrollTop = this.list.scrollHeight;
  }
}

/**
 * Renders the widget's panel, opened and inert, with the given settings into `container` (its own
 * Shadow DOM, filling the container), for the console's onboarding preview. Call `update` as the
 * settings change; no network, no socket.
 */
export function renderPreview(container: HTMLElement, settings: PublicSettings, opts: { base?: string; lang?: string; texts?: Texts } = {}) {
  const root = container.shadowRoot ?? container.attachShadow({ mode: 'open' });
  root.replaceChildren();
  const view = new View(root, { base: opts.base ?? '', settings, lang: opts.lang, texts: opts.texts, preview: PREVIEW });
  view.setMessages([]);
  view.setOpen(true);
  return {
    update(next: PublicSettings) {
      view.applySettings(next);
      view.setOffline(!next.agent_online);
      view.setMessages([]);
    },
    destroy() {
      root.replaceChildren();
    },
  };
}
