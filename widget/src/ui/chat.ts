/**
 * The live widget: visitor identity, history, sending with retries, the socket and its REST
 * fallback, unread badge and the host-page API. Entry of the UI chunk (dist/ui-<hash>.js).
 */
import { EVENTS, POLL_INTERVAL_MS, VISITOR_SIDE_EVENTS } from '../shared.js';
import { attachmentProblem, isImageFile, localFileFields } from './files.js';
import type { MessageCreatedPayload, MessageDto, SendAck, TypingPayload } from '@parley/shared';
import type { Command, EventKind, LoaderContext } from '../types.js';
import { type Api, createApi } from './api.js';
import { browserTimeZone } from '../lang.js';
import { loadTexts, type Texts } from './i18n.js';
import { type ChatMessage, lastStoredId, mergeMessages } from './merge.js';
import { type Channels, SendError, deliver, isChatLimit, isRateLimited, isRetryable, newClientId } from './outbox.js';
import { absolute, h, icon } from './dom.js';
import { loadFeature } from './lazy.js';
import { View } from './render.js';
import { MiniSocket } from './socket.js';
import { type Stored, load, save } from './storage.js';

type Listener = (data: unknown) => void;

/** Issue 13: proactive messages are looked up this long after the UI starts. */
const PROACTIVE_AFTER_MS = 2000;

/** Three dots: the widget's menu (issue 13). */
const MENU_ICON = 'M12 8a2 2 0 1 0 0-4 2 2 0 0 0 0 4m0 6a2 2 0 1 0 0-4 2 2 0 0 0 0 4m0 6a2 2 0 1 0 0-4 2 2 0 0 0 0 4';

export class Chat {
  private readonly view: View;
  private readonly api: Api;
  private me?: Stored;
  private creating?: Promise<Stored>;
  private socket?: MiniSocket;
  private messages: ChatMessage[] = [];
  private images = new Map<string, Blob>();
  private listeners = new Map<string, Listener[]>();
  private historyLoaded = false;
  private syncing?: Promise<void>;
  private syncingFull = false;
  private fullAfter = false;
  /** The last answer's next_cursor: every later sync asks only for what committed since. */
  private cursor?: string;
  private poll?: ReturnType<typeof setTimeout>;
  /** The REST poll's next wait: 10 s, doubled up to a minute while the page is hidden (issue 15). */
  private pollWait = POLL_INTERVAL_MS;
  private typingOff?: ReturnType<typeof setTimeout>;
  private agentTyping?: ReturnType<typeof setTimeout>;
  private reported = new Set<EventKind>();
  private settingsAt = Date.now();
  private page = location.href;
  /** A new chat was refused (the account's monthly chats are used up): the offline form stays. */
  private limited = false;
  /** Issue 17: the assistant answer's view is loading or loaded. */
  private aiLoading = false;
  /** The header's menu button (issue 13), once shown. */
  private menu?: HTMLButtonElement;

  constructor(
    private readonly ctx: LoaderContext,
    lang: string,
    texts: Texts,
  ) {
    this.api = createApi(ctx.base, ctx.key, () => this.me?.visitor_token);
    this.view = new View(ctx.root, {
      base: ctx.base,
      lang,
      texts,
      settings: ctx.settings,
      launcher: ctx.launcher,
      handlers: {
        toggle: (open) => this.toggled(open),
        send: (text) => this.sendText(text),
        attach: (file) => this.attach(file),
        retry: (m) => this.retry(m),
        offline: (email, message) => this.offline(email, message),
        typing: () => this.typing(),
        vote: (id, vote) => this.vote(id, vote),
        handover: () => this.handover(),
      },
    });
    this.me = load(ctx.key);
    this.showMenu();
    if (this.me) {
      // A returning visitor: count this page view, go live and show what came while away.
      this.api.updateVisitor({ page_url: location.href, time_zone: browserTimeZone() }).catch((e) => this.failed(e));
      this.live();
    } else this.report('connect', 'ready');
    setInterval(() => this.watchPage(), 2000);
    // Issue 13: the account's proactive messages, from their own module, once the page has settled
    // (not among what a visitor downloads before the panel is usable); their seconds count from the page's load.
    setTimeout(() => this.startProactive(), PROACTIVE_AFTER_MS);
    document.addEventListener('visibilitychange', () => {
      this.markSeen();
      // Back in sight while polling: ask at once and poll every 10 s again.
      if (this.poll && !document.hidden) {
        this.stopPolling();
        this.sync();
        this.startPolling();
      }
    });
  }

  /** A host-page command: Parley('open' | 'close' | 'toggle' | 'identify' | 'on', ...). */
  command([name, a, b]: Command): void {
    if (name === 'open') this.view.setOpen(true);
    else if (name === 'close') this.view.setOpen(false);
    else if (name === 'toggle') this.view.setOpen(!this.view.open);
    else if (name === 'on' && typeof a === 'string' && typeof b === 'function') {
      this.listeners.set(a, [...(this.listeners.get(a) ?? []), b as Listener]);
    } else if (name === 'identify' && a && typeof a === 'object') this.identify(a as { name?: unknown; email?: unknown });
  }

  private emit(event: string, data?: unknown): void {
    for (const fn of this.listeners.get(event) ?? []) {
      try {
        fn(data);
      } catch {
        // The host's callback failing must not break the widget.
      }
    }
  }

  private report(kind: EventKind, detail?: string): void {
    // One of each per page load, and a failure never overrides a load that already connected.
    if (this.reported.has(kind) || (kind === 'error' && this.reported.has('connect'))) return;
    this.reported.add(kind);
    this.ctx.report(kind, detail);
  }

  /** A refusal in the visitor's language (the server's code; refusals.ts, loaded on the first one), else the server's words. */
  private say(err: unknown): Promise<string> {
    const e: Error & { status?: number; code?: string } = err instanceof Error ? err : new Error(String(err));
    const refusal = { message: e.message, status: e.status, code: e.code };
    return loadFeature(this.ctx.base, 'refusals').then(
      (m) => m.refusalText(refusal, this.view.t, this.view.lang, this.ctx.base),
      () => refusal.message,
    );
  }

    private failed(err: unknown): void {
    if (err instanceof SendError && err.status === 401) this.forget();
  }

  /** The visitor was deleted or the token revoked: start over as a new visitor on next contact. */
  private forget(): void {
    this.me = undefined;
    this.cursor = undefined;
    this.creating = undefined;
    save(this.ctx.key, undefined);
    this.socket?.close();
    this.socket = undefined;
    this.stopPolling();
  }

  private identify(who: { name?: unknown; email?: unknown }): void {
    const patch: { name?: string; email?: string } = {};
    if (typeof who.name === 'string') patch.name = who.name.slice(0, 255);
    if (typeof who.email === 'string') patch.email = who.email.slice(0, 254);
    const me = this.me;
    if (!me) {
      this.visitor(patch).catch(() => {});
      return;
    }
    if ((patch.name ?? me.name) === me.name && (patch.email ?? me.email) === me.email) return;
    this.api.updateVisitor(patch).then(() => this.store({ ...me, ...patch }), (e) => this.failed(e));
  }

  private store(me: Stored): void {
    this.me = me;
    save(this.ctx.key, me);
    this.showMenu();
  }

  /** The visitor, created on first contact (open, send, identify), once. */
  private visitor(extra: { name?: string; email?: string } = {}): Promise<Stored> {
    if (this.me) return Promise.resolve(this.me);
    this.creating ??= this.api
      .createVisitor({ ...extra, page_url: location.href, referrer: document.referrer, locale: this.view.lang, time_zone: browserTimeZone() })
      .then((id) => {
        this.store({ ...id, ...extra });
        this.live(true);
        return this.me as Stored;
      })
      .catch((e: unknown) => {
        this.creating = undefined;
        this.report('error', `visitor: ${e instanceof Error ? e.message : e}`);
        throw e;
      });
    return this.creating;
  }

  /**
   * Socket with REST catch-up; REST polling while the socket is down. A visitor created just now
   * has no history yet: nothing to fetch before the socket's connect, whose catch-up (or the
   * poll's, when the socket is down) is the first sync.
   */
  private live(fresh = false): void {
    if (fresh) this.historyLoaded = true;
    else this.sync();
    if (this.socket || !this.me) {
      this.startPolling();
      return;
    }
    const s = new MiniSocket(this.ctx.base, () => ({ widget_key: this.ctx.key, visitor_token: this.me?.visitor_token }));
    this.socket = s;
    s.on('connect', () => {
      this.report('connect', 'socket');
      this.stopPolling();
      // After any (re)connect, catch up since the cursor (or refetch the whole history): a push
      // lost while away may be older than the newest message held. Merging drops doubles.
      this.sync(true);
      if (this.page !== location.href) this.watchPage();
    });
    // The server says pushes may have been lost (a node died, Redis came back): the same.
    s.on(EVENTS.syncRequired, () => this.sync(true));
    // A node draining for a restart: come back after its jittered wait (the connect catches up).
    s.on(EVENTS.serverReconnect, (p: { in_ms?: number }) => s.reconnectIn(p?.in_ms));
    s.on('disconnect', () => this.startPolling());
    s.on('connect_error', (err: { data?: { status?: number } }) => {
      if (err.data?.status === 401) this.forget();
      else this.startPolling();
    });
    s.on(EVENTS.messageCreated, (p: MessageCreatedPayload) => {
      if (!p?.message) return;
      // The delivery ack, on receipt: the server's parley_message_ack_seconds.
      s.emit(EVENTS.messageDelivered, { id: p.message.id, created_at: p.message.created_at });
      this.receive([p.message]);
    });
    // Issue 13: the conversation was resolved, the survey may be due (rating.ts, loaded only now).
    s.on(VISITOR_SIDE_EVENTS.ratingRequested, (p: { stretch?: string }) => this.askRating(p?.stretch));
    s.on(EVENTS.typing, (p: TypingPayload) => {
      if (p?.from === 'visitor') return;
      clearTimeout(this.agentTyping);
      this.view.setTyping(p.typing ? (p.name ?? this.ctx.settings.name) : null);
      // A lost "stopped typing" must not leave the indicator on forever.
      if (p.typing) this.agentTyping = setTimeout(() => this.view.setTyping(null), 8000);
    });
    // Only ever switch to the composer: the offline decision comes from the settings call, which
    // also counts recently active console sessions, while this event only knows console sockets.
    s.on(EVENTS.agentPresence, (p: { online?: boolean }) => {
      if (p?.online && !this.limited) this.view.setOffline(false);
    });
  }

  /** REST polls while the socket is down: every 10 s (SPEC's cadence) while the page is seen; a hidden page's polls back off to one a minute. */
  private startPolling(): void {
    if (this.poll || !this.me) return;
    this.poll = setTimeout(() => {
      this.poll = undefined;
      this.sync();
      this.pollWait = document.hidden ? Math.min(this.pollWait * 2, 60_000) : POLL_INTERVAL_MS;
      this.startPolling();
    }, this.pollWait);
  }

  private stopPolling(): void {
    clearTimeout(this.poll);
    this.poll = undefined;
    this.pollWait = POLL_INTERVAL_MS;
  }

  /**
   * GET /api/widget/messages?cursor=<next_cursor> (everything committed since the last answer,
   * whatever the commit order), or everything when there is no cursor yet; one at a time (a full
   * one asked for meanwhile runs next, unless the running one is full already).
   */
  private sync(full = false): void {
    if (!this.me) return;
    if (this.syncing) {
      if (full && !this.syncingFull) this.fullAfter = true;
      return;
    }
    const cursor = this.cursor;
    const all = !cursor && (full || lastStoredId(this.messages) === 0);
    this.syncingFull = all;
    this.syncing = this.api
      .messages(cursor, all ? 0 : lastStoredId(this.messages))
      .then((page) => {
        if (page.next_cursor) this.cursor = page.next_cursor;
        if (!this.socket?.connected) this.report('connect', 'polling');
        this.receive(page.data ?? []);
        this.historyLoaded = true;
      }, (e) => this.failed(e))
      .finally(() => {
        this.syncing = undefined;
        if (this.fullAfter) {
          this.fullAfter = false;
          this.sync(true);
        }
      });
  }

  /** Issue 17: the visitor's vote on an assistant's answer, shown at once (the server keeps the last). */
  private vote(id: number, vote: 'helpful' | 'not_helpful'): void {
    this.api.vote(id, vote).then(() => {
      this.messages = this.messages.map((m) => (m.id === id && m.ai ? { ...m, ai: { ...m.ai, vote } } : m));
      this.view.setMessages(this.messages);
    }, (e) => this.failed(e));
  }

  /** Issue 17: "Talk to a person": the server hands over and posts when a person will reply (it arrives as a message). */
  private handover(): void {
    this.api.handover().then(() => {
      this.view.setHandedOver();
      this.view.setMessages(this.messages);
      this.sync();
    }, (e) => this.failed(e));
  }

  /**
   * Issue 17: the answer view and its words in the visitor's language (their own chunk), once: for
   * the first assistant answer, or for the away text to say when the team is back.
   */
  private loadAi(): void {
    if (this.aiLoading) return;
    this.aiLoading = true;
    loadFeature(this.ctx.base, 'aiAnswer').then((mod) => mod.withTexts(this.view.lang, this.ctx.base)).then((mod) => {
      this.view.setAi(mod);
      this.view.setMessages(this.messages);
    }, () => {
      this.aiLoading = false; // shown as plain messages (the away text without "back at"); tried again later
    });
  }

  /** Outside business hours with nobody online, the away text says when the team is back: it needs the answer view's words. */
  private awayBack(): void {
    const s = this.ctx.settings;
    if (s.back_at && !s.agent_online) this.loadAi();
  }

  private receive(incoming: readonly MessageDto[]): void {
    const { list, added } = mergeMessages(this.messages, incoming);
    this.messages = list;
    this.view.setMessages(list);
    // Issue 17: the first assistant answer loads how answers show (its own chunk).
    if (incoming.some((m) => m.ai)) this.loadAi();
    const seen = this.me?.seen ?? 0;
    const away = !this.view.open || document.hidden;
    let unread = this.view.unreadCount;
    for (const m of added) {
      if (m.sender_type === 'visitor') continue;
      this.view.setTyping(null);
      if (away && m.id > seen) unread++;
    }
    this.view.setUnread(unread);
    if (this.historyLoaded) for (const m of added) this.emit('message', m);
    this.markSeen();
  }

  private markSeen(): void {
    const me = this.me;
    if (!me || !this.view.open || document.hidden) return;
    this.view.setUnread(0);
    const last = lastStoredId(this.messages);
    if (last <= (me.seen ?? 0)) return;
    this.store({ ...me, seen: last });
    if (this.socket?.connected) this.socket.emit(EVENTS.messageSeen, { last_id: last });
  }

  private toggled(open: boolean): void {
    this.emit(open ? 'open' : 'close');
    // Issue 13: closing a chat an agent answered may ask for a rating; so does opening one
    // while live pushes are down (a resolve's push was missed).
    if (this.messages.some((m) => m.sender_type === 'user') && (!open || !this.socket?.connected)) this.askRating();
    if (!open) return;
    this.visitor().catch(() => {});
    this.markSeen();
    this.awayBack();
    // Presence and greetings change: refresh settings opened after a minute.
    if (Date.now() - this.settingsAt > 60_000) {
      this.settingsAt = Date.now();
      this.api.settings().then((s) => {
        this.ctx.settings = s;
        this.view.applySettings(s);
        if (!this.limited && (s.agent_online || !this.messages.length)) this.view.setOffline(!s.agent_online);
        this.awayBack();
      }, () => {});
    }
  }

  private sendText(text: string): void {
    this.stopTyping();
    this.enqueue({ message: text });
  }

  private attach(file: File): void {
    // The same rules and words as the server (it checks the bytes again): files.ts.
    const problem = attachmentProblem(file);
    if (problem) {
      this.view.showError(this.view.t[problem]);
      return;
    }
    this.enqueue({ message: '', image: file });
  }

  private enqueue({ message, image }: { message: string; image?: Blob }): void {
    this.view.showError('');
    const m: ChatMessage = {
      client_id: newClientId(),
      visitor_id: this.me?.visitor_id ?? '',
      message,
      file_path: '',
      local_url: image && isImageFile(image) ? URL.createObjectURL(image) : undefined,
      ...(image instanceof File ? localFileFields(image) : {}),
      sender_type: 'visitor',
      author_id: null,
      author_name: null,
      created_at: new Date().toISOString(),
      state: 'pending',
    };
    if (image && m.client_id) this.images.set(m.client_id, image);
    this.messages = [...this.messages, m];
    this.view.setMessages(this.messages);
    void this.push(m);
  }

  private retry(m: ChatMessage): void {
    this.update(m.client_id, { state: 'pending', error: undefined });
    void this.push(m);
  }

  private update(clientId: string | null, patch: Partial<ChatMessage>): void {
    this.messages = this.messages.map((x) => (x.id === undefined && x.client_id === clientId ? { ...x, ...patch } : x));
    this.view.setMessages(this.messages);
  }

  /** Delivers a pending message; every attempt (and a later manual retry) reuses its client_id. */
  private async push(m: ChatMessage): Promise<void> {
    const clientId = m.client_id ?? '';
    const channels: Channels = {
      socket: () => {
        const s = this.socket;
        if (!s?.connected) return undefined;
        return (o) =>
          s.request<SendAck>(EVENTS.messageSend, { message: o.message, client_id: o.client_id }).then(
            (ack) => {
              if (ack.ok) return ack.data;
              throw new SendError(ack.message, ack.status, ack.retry_after, ack.code);
            },
            () => Promise.reject(new SendError('timeout')),
          );
      },
      rest: (o) => this.api.send(o),
    };
    try {
      await this.visitor();
      const stored = await deliver({ client_id: clientId, message: m.message, image: this.images.get(clientId) }, channels);
      this.images.delete(clientId);
      this.receive([stored]);
      loadFeature(this.ctx.base, 'refusals').then((m) => m.warmRefusals(this.view.lang, this.ctx.base), () => {});
    } catch (err) {
      this.failed(err);
      if (isRateLimited(err)) {
        // Too many messages for now: it stays pending in the outbox and goes again when allowed.
        setTimeout(() => void this.push(m), Math.max(5, err.retryAfter) * 1000);
        return;
      }
      if (isChatLimit(err)) {
        // The plan's chats are used up this month: nothing was stored. Offer the offline form,
        // holding what the visitor typed so it is not lost.
        this.messages = this.messages.filter((x) => !(x.id === undefined && x.client_id === clientId));
        this.view.setMessages(this.messages);
        this.images.delete(clientId);
        this.limited = true;
        this.view.setOffline(true, m.message);
        return;
      }
      this.update(clientId, { state: 'failed', error: isRetryable(err) ? undefined : await this.say(err) });
    }
  }

  private typing(): void {
    const s = this.socket;
    if (!s?.connected) return;
    if (!this.typingOff) s.emit(EVENTS.typing, { typing: true });
    clearTimeout(this.typingOff);
    this.typingOff = setTimeout(() => this.stopTyping(), 3000);
  }

  private stopTyping(): void {
    if (!this.typingOff) return;
    clearTimeout(this.typingOff);
    this.typingOff = undefined;
    this.socket?.emit(EVENTS.typing, { typing: false });
  }

  private offline(email: string, message: string): void {
    this.view.showError('');
    this.visitor()
      .then(() => this.api.offline(email, message))
      .then(
        () => {
          this.view.offlineSent();
          if (this.me) this.store({ ...this.me, email }); // the server keeps it too: the menu may offer the transcript
        },
        (e: unknown) => void this.say(e).then((words) => this.view.showError(words)),
      );
  }

  /** Issue 13: the menu (transcript by email) in the header, once the visitor's email is known; its code loads on first use. */
  private showMenu(): void {
    if (this.menu || !this.me?.email) return;
    const label = this.view.t.menu;
    const button = h('button', { type: 'button', class: 'x', 'aria-label': label, title: label, 'aria-haspopup': 'menu', 'aria-expanded': 'false' }, icon(MENU_ICON));
    this.menu = button;
    button.onclick = () =>
      loadFeature(this.ctx.base, 'transcript')
        .then(({ toggleMenu }) =>
          toggleMenu({ base: this.ctx.base, token: () => this.me?.visitor_token, say: (e) => this.say(e), texts: this.view.t, root: this.ctx.root, h, button, show: (el) => this.view.setSlot(el) }),
        )
        .catch(() => {});
    this.view.headerExtra.append(button);
  }

  /** Issue 13: proactive messages (proactive.ts decides when; the server records each showing). */
  private startProactive(): void {
    const s = this.ctx.settings;
    loadFeature(this.ctx.base, 'proactive')
      .then(({ startProactive }) =>
        startProactive({
          base: this.ctx.base,
          key: this.ctx.key,
          token: () => this.me?.visitor_token,
          h,
          texts: this.view.t,
          root: this.ctx.root,
          sender: { name: s.name, avatar: s.avatar_url ? absolute(this.ctx.base, s.avatar_url) : '' },
          ensureVisitor: () => this.visitor().then(() => undefined),
          isOpen: () => this.view.open,
          open: () => this.view.setOpen(true),
          show: (el) => this.view.setSlot(el),
        }),
      )
      .catch(() => {});
  }

  /** Issue 13: the satisfaction survey, from its own chunk; the server says whether it is due. */
  private askRating(stretch?: string): void {
    if (!this.me) return;
    loadFeature(this.ctx.base, 'rating')
      .then(({ askRating }) =>
        askRating(
          { base: this.ctx.base, key: this.ctx.key, token: () => this.me?.visitor_token, say: (e) => this.say(e), texts: this.view.t, root: this.ctx.root, h, show: (el) => this.view.setSlot(el) },
          stretch,
        ),
      )
      .catch(() => {}); // a survey that cannot load or answer is simply not shown
  }

  /** Single-page apps change pages without reloading: tell the server about the new page. */
  private watchPage(): void {
    const url = location.href;
    if (url === this.page || !this.me) return;
    this.page = url;
    if (this.socket?.connected) this.socket.emit(EVENTS.visitorPage, { page_url: url }, () => {});
    else this.api.updateVisitor({ page_url: url }).catch((e) => this.failed(e));
  }
}

/** Called by the loader with its context; replays the commands queued before the UI arrived. */
export async function boot(ctx: LoaderContext): Promise<void> {
  const lang = ctx.lang ?? 'en'; // the loader picked it (lang.ts), so the UI chunk carries no language picker
  // Greetings in the visitor's language when the owner wrote them (issue 13), the default ones otherwise.
  const greetings = ctx.settings.greetings_by_language?.[lang];
  if (greetings?.initial_greeting) ctx.settings = { ...ctx.settings, ...greetings };
  const chat = new Chat(ctx, lang, await loadTexts(lang, ctx.base));
  ctx.run = (cmd) => {
    try {
      chat.command(cmd);
    } catch {
      // Never throw into the host page.
    }
  };
  for (const cmd of ctx.queue.splice(0)) ctx.run(cmd);
}
