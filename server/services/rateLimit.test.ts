import { afterEach, describe, expect, it, vi } from 'vitest';
import { type SocketSlot, SLOT_TTL_MS, createWidgetLimits, ipKey } from './rateLimit.js';

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
