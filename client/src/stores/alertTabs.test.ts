import { BroadcastChannel } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { type ChannelLike, type LocksLike, TabCoordinator } from './alertTabs';
import { TAB_STALE_MS } from './alertLogic';

/** A lock manager like navigator.locks: one holder per name, the next waiter gets it on release. */
class FakeLocks implements LocksLike {
  private queues = new Map<string, { cb: () => Promise<void>; signal?: AbortSignal; resolve: (v: unknown) => void; reject: (e: unknown) => void }[]>();
  private held = new Set<string>();
  request(name: string, options: { signal?: AbortSignal }, cb: () => Promise<void>): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const q = this.queues.get(name) ?? [];
      this.queues.set(name, q);
      const entry = { cb, signal: options.signal, resolve, reject };
      q.push(entry);
      options.signal?.addEventListener('abort', () => {
        const i = q.indexOf(entry);
        if (i >= 0) {
          q.splice(i, 1);
          reject(new Error('aborted'));
        }
      });
      this.next(name);
    });
  }
  private next(name: string): void {
    if (this.held.has(name)) return;
    const entry = this.queues.get(name)?.shift();
    if (!entry) return;
    this.held.add(name);
    void entry.cb().then((v) => {
      this.held.delete(name);
      entry.resolve(v);
      this.next(name);
    });
  }
}

const channels: BroadcastChannel[] = [];
const channel = (name: string): ChannelLike => {
  const c = new BroadcastChannel(name);
  channels.push(c);
  return c as unknown as ChannelLike;
};
afterEach(() => {
  for (const c of channels.splice(0)) c.close();
});
const settle = () => new Promise((r) => setTimeout(r, 30));
let seq = 0;

describe('TabCoordinator with Web Locks', () => {
  it('makes exactly one tab the leader, and hands over when it closes', async () => {
    const name = `t-${++seq}`;
    const locks = new FakeLocks();
    const a = new TabCoordinator({ tabId: 'a', lockName: name, channel: channel(name), locks });
    const b = new TabCoordinator({ tabId: 'b', lockName: name, channel: channel(name), locks });
    a.start({ visible: false });
    b.start({ visible: false });
    await settle();
    expect([a.leader, b.leader]).toEqual([true, false]);
    a.stop();
    await settle();
    expect(b.leader).toBe(true);
    b.stop();
  });

  it('knows whether any tab is visible, from the other tabs\' messages', async () => {
    const name = `t-${++seq}`;
    const locks = new FakeLocks();
    const a = new TabCoordinator({ tabId: 'a', lockName: name, channel: channel(name), locks });
    const b = new TabCoordinator({ tabId: 'b', lockName: name, channel: channel(name), locks });
    a.start({ visible: false });
    b.start({ visible: true });
    await settle();
    expect(a.agentAway()).toBe(false);
    b.announce({ visible: false });
    await settle();
    expect(a.agentAway()).toBe(true);
    a.announce({ visible: true });
    expect(a.agentAway()).toBe(false);
    a.stop();
    b.stop();
  });

  it('forgets a tab that closed or went silent', async () => {
    const name = `t-${++seq}`;
    let now = 1_000_000;
    const locks = new FakeLocks();
    const a = new TabCoordinator({ tabId: 'a', lockName: name, channel: channel(name), locks, now: () => now });
    const b = new TabCoordinator({ tabId: 'b', lockName: name, channel: channel(name), locks, now: () => now });
    const c = new TabCoordinator({ tabId: 'c', lockName: name, channel: channel(name), locks, now: () => now });
    a.start({ visible: false });
    b.start({ visible: true });
    c.start({ visible: false });
    await settle();
    expect(a.agentAway()).toBe(false);
    now += TAB_STALE_MS + 1; // b crashed without a word
    expect(a.agentAway()).toBe(true);
    c.announce({ visible: true });
    await settle();
    expect(a.agentAway()).toBe(false);
    c.stop();
    await settle();
    expect(a.agentAway()).toBe(true);
    a.stop();
    b.stop();
  });

  it('carries app data to the other tabs only', async () => {
    const name = `t-${++seq}`;
    const got: Record<string, unknown[]> = { a: [], b: [] };
    const a = new TabCoordinator({ tabId: 'a', lockName: name, channel: channel(name), onApp: (d) => got.a!.push(d) });
    const b = new TabCoordinator({ tabId: 'b', lockName: name, channel: channel(name), onApp: (d) => got.b!.push(d) });
    a.start({ visible: true });
    b.start({ visible: true });
    a.share({ type: 'read-all' });
    await settle();
    expect(got).toEqual({ a: [], b: [{ type: 'read-all' }] });
    a.stop();
    b.stop();
  });
});

describe('TabCoordinator without Web Locks', () => {
  it('lets the live tab with the smallest id lead, and the next one once it leaves', async () => {
    const name = `t-${++seq}`;
    const leaders: string[] = [];
    const a = new TabCoordinator({ tabId: 'a', lockName: name, channel: channel(name) });
    const b = new TabCoordinator({ tabId: 'b', lockName: name, channel: channel(name), onLeaderChange: (l) => l && leaders.push('b') });
    b.start({ visible: false });
    a.start({ visible: false });
    await settle();
    expect([a.leader, b.leader]).toEqual([true, false]);
    a.stop();
    await settle();
    expect(b.leader).toBe(true);
    expect(leaders).toEqual(['b', 'b']);
    b.stop();
  });
});
