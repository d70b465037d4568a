import { afterEach, describe, expect, it, vi } from 'vitest';
import { type SocketSlot, SLOT_TTL_MS, TOO_MANY_REQUESTS, createWidgetLimits, defaultBurst, ipKey } from './rateLimit.js';

describe('ipKey', () => {
  it('counts IPv4 as is, IPv4-mapped IPv6 as its IPv4, and IPv6 by its /64', () => {
    expect(ipKey('203.0.113.7')).toBe('203.0.113.7');
    expect(ipKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(ipKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(ipKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(ipKey('2001:DB8:1:2:0:0:0:9')).toBe('2001:db8:1:2::/64');
    expect(ipKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(ipKey('::1')).toBe('0:0:0:0::/64');
    expect(ipKey('2001:db8:1:3::1')).not.toBe(ipKey('2001:db8:1:2::1'));
  });
});

describe('socket slots (one node, no Redis)', () => {
  afterEach(() => vi.useRealTimers());
  const limits = () =>
    createWidgetLimits({ perIp: 100, perVisitor: 100, perKey: 100, newVisitorsPerIp: 100, socketsPerVisitor: 2, socketsPerIp: 3 }, 'test', undefined);
  const slot = (id: string, visitorKey: string, ip: string): SocketSlot => ({ id, visitorKey, ip });

  it('caps per visitor and per IP (a /64 is one IP), and frees a released slot', async () => {
    const { sockets } = limits();
    expect(await sockets.acquire(slot('a', 'v1', '2001:db8:1:2::1'))).toBe('ok');
    expect(await sockets.acquire(slot('b', 'v1', '2001:db8:1:2::2'))).toBe('ok');
    expect(await sockets.acquire(slot('c', 'v1', '2001:db8:1:2::3'))).toBe('visitor');
    expect(await sockets.acquire(slot('d', 'v2', '2001:db8:1:2::4'))).toBe('ok');
    expect(await sockets.acquire(slot('e', 'v3', '2001:db8:1:2::5'))).toBe('ip');
    expect(await sockets.acquire(slot('f', 'v3', '2001:db8:1:9::5'))).toBe('ok');
    await sockets.release(slot('a', 'v1', '2001:db8:1:2::1'));
    expect(await sockets.acquire(slot('g', 'v1', '2001:db8:1:2::1'))).toBe('ok');
  });

  it('lets the slots of sockets nobody refreshes expire (a node that died), and keeps refreshed ones', async () => {
    vi.useFakeTimers();
    const { sockets } = limits();
    const live = slot('live', 'v1', '198.51.100.1');
    await sockets.acquire(live);
    await sockets.acquire(slot('dead', 'v1', '198.51.100.1'));
    expect(await sockets.acquire(slot('x', 'v1', '198.51.100.1'))).toBe('visitor');
    vi.advanceTimersByTime(SLOT_TTL_MS / 2);
    await sockets.refresh([live]);
    vi.advanceTimersByTime(SLOT_TTL_MS / 2 + 1);
    expect(await sockets.acquire(slot('y', 'v1', '198.51.100.1'))).toBe('ok');
    expect(await sockets.acquire(slot('z', 'v1', '198.51.100.1'))).toBe('visitor');
  });
});

describe('burst buckets beside the per-minute budgets (one node, no Redis)', () => {
  afterEach(() => vi.useRealTimers());
  const limits = (burst: { perVisitor?: number; perIp?: number; newVisitorsPerIp?: number }) =>
    createWidgetLimits({ perIp: 600, perVisitor: 120, perKey: 6000, newVisitorsPerIp: 100, socketsPerVisitor: 3, socketsPerIp: 50, burst }, 'test', undefined);
  const outcome = (p: Promise<void>) =>
    p.then(
      () => 'ok',
      (e: { statusCode?: number; message?: string; retryAfterSeconds?: number; limit?: string }) => {
        expect(e.statusCode).toBe(429);
        expect(e.message).toBe(TOO_MANY_REQUESTS);
        expect(e.retryAfterSeconds).toBeGreaterThanOrEqual(1);
        return e.limit;
      },
    );

  it("cuts a visitor's burst at its bucket, and the refused calls spend nothing of the minute's budget", async () => {
    vi.useFakeTimers();
    const l = limits({ perVisitor: 10 });
    const at = await Promise.all(Array.from({ length: 50 }, () => outcome(l.visitorCall('203.0.113.9', 'burst-v'))));
    expect(at.filter((r) => r === 'ok')).toHaveLength(10);
    expect(new Set(at.filter((r) => r !== 'ok'))).toEqual(new Set(['widget-visitor-burst']));
    // Over the next 11 s the bucket refills 10 a second: the minute's 120 are all there (nothing
    // refused above was counted), then the minute's budget refuses.
    let ok = 10;
    for (let s = 0; s < 11; s++) {
      vi.advanceTimersByTime(1000);
      for (let i = 0; i < 10; i++) if ((await outcome(l.visitorCall('203.0.113.9', 'burst-v'))) === 'ok') ok++;
    }
    expect(ok).toBe(120);
    vi.advanceTimersByTime(1000);
    expect(await outcome(l.visitorCall('203.0.113.9', 'burst-v'))).toBe('widget-visitor');
  });

  it("never refuses a visitor's paced use: a send, typing and seen every second, a page load's calls at once", async () => {
    vi.useFakeTimers();
    const l = limits({}); // the defaults: 10 at once per visitor, 50 per IP
    // A page load: settings, visitor, messages, events, socket handshake, all at once.
    const load = await Promise.all(Array.from({ length: 6 }, () => outcome(l.visitorCall('198.51.100.20', 'paced'))));
    expect(load.every((r) => r === 'ok')).toBe(true);
    for (let s = 0; s < 40; s++) {
      vi.advanceTimersByTime(1000);
      for (let i = 0; i < 2; i++) expect(await outcome(l.visitorCall('198.51.100.20', 'paced'))).toBe('ok');
    }
  });

  it('lets a visitor on the same IP go on while another visitor is cut; the IP has its own bucket', async () => {
    vi.useFakeTimers();
    const l = limits({ perVisitor: 5, perIp: 8 });
    const flood = await Promise.all(Array.from({ length: 20 }, () => outcome(l.visitorCall('192.0.2.1', 'flooder'))));
    expect(flood.filter((r) => r === 'ok')).toHaveLength(5);
    expect(await outcome(l.visitorCall('192.0.2.1', 'neighbour'))).toBe('ok');
    const more = await Promise.all(Array.from({ length: 5 }, (_, i) => outcome(l.visitorCall('192.0.2.1', `other-${i}`))));
    expect(more.filter((r) => r === 'ok')).toHaveLength(2); // 8 at once from the IP: 5 + 1 + 2
    expect(more).toContain('widget-ip-burst');
  });

  it('spreads new visitors from one IP: a burst at once, then the refill', async () => {
    vi.useFakeTimers();
    const l = limits({ newVisitorsPerIp: 3 });
    const at = await Promise.all(Array.from({ length: 10 }, () => outcome(l.newVisitor('192.0.2.50'))));
    expect(at.filter((r) => r === 'ok')).toHaveLength(3);
    expect(at).toContain('widget-new-visitor-ip-burst');
    vi.advanceTimersByTime(1000);
    expect((await Promise.all(Array.from({ length: 5 }, () => outcome(l.newVisitor('192.0.2.50'))))).filter((r) => r === 'ok')).toHaveLength(3);
  });

  it('derives the default bursts from the budgets', () => {
    expect(defaultBurst(120, 10)).toBe(10);
    expect(defaultBurst(600, 50)).toBe(50);
    expect(defaultBurst(6000, 100)).toBe(500);
    expect(defaultBurst(100, 5)).toBe(9);
    expect(defaultBurst(30, 5)).toBe(5);
    expect(defaultBurst(1_000_000, 10)).toBe(83_334);
  });
});
