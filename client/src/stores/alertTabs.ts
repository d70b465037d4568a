import { TAB_HEARTBEAT_MS, TAB_STALE_MS, type TabInfo, shouldAlert } from './alertLogic';

/**
 * The console tabs of one user in one browser agree on a leader, so one event gives one
 * notification and one sound (PRODUCT.md section 11). With Web Locks the tab holding the lock
 * leads until it closes; without them, the live tab with the smallest id leads. The tabs tell
 * each other their visibility over a BroadcastChannel, so the leader knows whether the agent
 * can see any of them.
 */

/** The parts of BroadcastChannel used here (tests pass Node's). */
export interface ChannelLike {
  postMessage(message: unknown): void;
  addEventListener(type: 'message', listener: (e: { data: unknown }) => void): void;
  removeEventListener(type: 'message', listener: (e: { data: unknown }) => void): void;
  close(): void;
}
/** The part of navigator.locks used here. */
export interface LocksLike {
  request(name: string, options: { signal?: AbortSignal }, callback: () => Promise<void>): Promise<unknown>;
}

export type TabMessage =
  | { type: 'hello'; tab: string }
  | ({ type: 'tab'; tab: string } & TabInfo)
  | { type: 'bye'; tab: string }
  /** Anything the app shares between its tabs (e.g. "mark all read"). */
  | { type: 'app'; tab: string; data: unknown };

export interface TabCoordinatorOptions {
  tabId: string;
  lockName: string;
  channel: ChannelLike;
  locks?: LocksLike;
  now?: () => number;
  onApp?: (data: unknown) => void;
  onLeaderChange?: (leader: boolean) => void;
}

export class TabCoordinator {
  private tabs = new Map<string, TabInfo>();
  private self: TabInfo;
  private lockHeld = false;
  private releaseLock: (() => void) | null = null;
  private abort = new AbortController();
  private timer: ReturnType<typeof setInterval> | null = null;
  private stopped = false;
  private readonly now: () => number;
  private wasLeader = false;

  constructor(private opts: TabCoordinatorOptions) {
    this.now = opts.now ?? Date.now;
    this.self = { visible: false, at: this.now() };
  }

  start(info: Omit<TabInfo, 'at'>): void {
    this.opts.channel.addEventListener('message', this.onMessage);
    this.self = { ...info, at: this.now() };
    this.post({ type: 'hello', tab: this.opts.tabId });
    this.announce(info);
    this.timer = setInterval(() => this.announce(this.self), TAB_HEARTBEAT_MS);
    const { locks } = this.opts;
    if (locks) {
      locks
        .request(this.opts.lockName, { signal: this.abort.signal }, () => {
          if (this.stopped) return Promise.resolve();
          this.lockHeld = true;
          this.leaderMaybeChanged();
          return new Promise<void>((resolve) => {
            this.releaseLock = resolve;
          });
        })
        .catch(() => undefined); // aborted on stop
    }
    this.leaderMaybeChanged();
  }

  /** This tab's visibility changed (also re-sent as a heartbeat). */
  announce(info: Omit<TabInfo, 'at'>): void {
    this.self = { ...info, at: this.now() };
    this.post({ type: 'tab', tab: this.opts.tabId, ...this.self });
  }

  /** Sends app data to the other tabs (not to this one). */
  share(data: unknown): void {
    this.post({ type: 'app', tab: this.opts.tabId, data });
  }

  get leader(): boolean {
    if (this.stopped) return false;
    if (this.opts.locks) return this.lockHeld;
    const now = this.now();
    for (const [id, t] of this.tabs) if (now - t.at < TAB_STALE_MS && id < this.opts.tabId) return false;
    return true;
  }

  /** Whether an event should alert now: no console tab of this user is visible. */
  agentAway(): boolean {
    return shouldAlert([this.self, ...this.tabs.values()], this.now());
  }

  stop(): void {
    if (this.stopped) return;
    this.post({ type: 'bye', tab: this.opts.tabId });
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.abort.abort();
    this.releaseLock?.();
    this.lockHeld = false;
    this.opts.channel.removeEventListener('message', this.onMessage);
    this.opts.channel.close();
  }

  private post(m: TabMessage): void {
    if (this.stopped) return;
    try {
      this.opts.channel.postMessage(m);
    } catch {
      // a closed channel: this tab is going away
    }
  }

  private leaderMaybeChanged(): void {
    const now = this.leader;
    if (now !== this.wasLeader) {
      this.wasLeader = now;
      this.opts.onLeaderChange?.(now);
    }
  }

  private onMessage = (e: { data: unknown }) => {
    const m = e.data as TabMessage | null;
    if (!m || typeof m !== 'object' || m.tab === this.opts.tabId) return;
    if (m.type === 'hello') this.announce(this.self);
    else if (m.type === 'tab') this.tabs.set(m.tab, { visible: Boolean(m.visible), at: this.now() });
    else if (m.type === 'bye') this.tabs.delete(m.tab);
    else if (m.type === 'app') this.opts.onApp?.(m.data);
    this.leaderMaybeChanged();
  };
}
