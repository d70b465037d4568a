import { afterEach, describe, expect, it, vi } from 'vitest';
import { ttlCache } from './ttlCache.js';

describe('ttlCache', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('loads a key once per period, shares a load in flight, and loads again after the period', async () => {
    vi.useFakeTimers();
    const cache = ttlCache<string, number>(1000);
    let loads = 0;
    const load = async () => ++loads;
    const [a, b] = await Promise.all([cache.get('k', load), cache.get('k', load)]);
    expect([a, b, loads]).toEqual([1, 1, 1]);
    vi.advanceTimersByTime(999);
    expect(await cache.get('k', load)).toBe(1);
    vi.advanceTimersByTime(1);
    expect(await cache.get('k', load)).toBe(2);
    expect(await cache.get('other', load)).toBe(3);
  });

  it('loads again after forget (a write on this node) and does not keep a failed load', async () => {
    const cache = ttlCache<string, string>(60_000);
    let value = 'old';
    const load = async () => value;
    expect(await cache.get('k', load)).toBe('old');
    value = 'new';
    expect(await cache.get('k', load)).toBe('old');
    cache.forget('k');
    expect(await cache.get('k', load)).toBe('new');

    let fail = true;
    const flaky = async () => {
      if (fail) throw new Error('database down');
      return 'back';
    };
    await expect(cache.get('f', flaky)).rejects.toThrow('database down');
    fail = false;
    expect(await cache.get('f', flaky)).toBe('back');
  });

  it('stays bounded: past the entry limit it starts over', async () => {
    const cache = ttlCache<number, number>(60_000, 3);
    let loads = 0;
    const load = async (k: number) => {
      loads++;
      return k;
    };
    for (const k of [1, 2, 3]) await cache.get(k, load);
    await cache.get(4, load); // clears the three, keeps 4
    await cache.get(1, load);
    await cache.get(4, load);
    expect(loads).toBe(5);
  });
});
