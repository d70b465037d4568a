import { describe, expect, it } from 'vitest';
import type { MessageDto } from '@parley/shared';
import { type Channels, type Outgoing, SendError, deliver, isChatLimit, isRateLimited, newClientId } from './outbox.js';

const stored = (o: Outgoing): MessageDto => ({
  id: 1,
  visitor_id: 'v',
  message: o.message,
  file_path: '',
  sender_type: 'visitor',
  author_id: null,
  author_name: null,
  client_id: o.client_id,
  created_at: '2025-01-01T00:00:00.000Z',
});
const noSleep = { sleep: async () => {} };

/** A channel that fails with the given statuses in turn, then succeeds; records what it was sent. */
function flaky(statuses: number[]) {
  const seen: Outgoing[] = [];
  const send = async (o: Outgoing) => {
    seen.push(o);
    const status = statuses.shift();
    if (status !== undefined) throw new SendError('failed', status);
    return stored(o);
  };
  return { seen, send };
}

describe('deliver', () => {
  it('retries network and server failures with the same client_id', async () => {
    const rest = flaky([0, 503]);
    const channels: Channels = { socket: () => undefined, rest: rest.send };
    const out = await deliver({ client_id: 'abc', message: 'hi' }, channels, noSleep);
    expect(out.client_id).toBe('abc');
    expect(rest.seen.map((o) => o.client_id)).toEqual(['abc', 'abc', 'abc']);
  });

  it('does not retry what the server refused (validation, too large, not an image)', async () => {
    for (const status of [413, 415, 422]) {
      const rest = flaky([status]);
      await expect(deliver({ client_id: 'x', message: 'hi' }, { socket: () => undefined, rest: rest.send }, noSleep)).rejects.toMatchObject({ status });
      expect(rest.seen).toHaveLength(1);
    }
  });

  it('gives up after the last attempt with the last error', async () => {
    const rest = flaky([500, 500, 500, 502]);
    await expect(deliver({ client_id: 'x', message: 'hi' }, { socket: () => undefined, rest: rest.send }, noSleep)).rejects.toMatchObject({ status: 502 });
    expect(rest.seen).toHaveLength(4);
  });

  it('uses the socket while connected, REST when it drops, and REST for images', async () => {
    const socket = flaky([0]);
    const rest = flaky([]);
    let connected = true;
    const channels: Channels = {
      socket: () => (connected ? socket.send : undefined),
      rest: rest.send,
    };
    const waits: number[] = [];
    await deliver({ client_id: 'c1', message: 'hi' }, channels, {
      sleep: async (ms: number) => {
        waits.push(ms);
        connected = false;
      },
    });
    expect(socket.seen.map((o) => o.client_id)).toEqual(['c1']);
    expect(rest.seen.map((o) => o.client_id)).toEqual(['c1']);
    expect(waits).toEqual([1000]);
    connected = true;
    await deliver({ client_id: 'c2', message: '', image: new Blob(['x']) }, channels, noSleep);
    expect(rest.seen.map((o) => o.client_id)).toEqual(['c1', 'c2']);
  });

  it('makes client ids the server accepts, different each time', () => {
    const ids = new Set(Array.from({ length: 200 }, newClientId));
    expect(ids.size).toBe(200);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
  });
});

describe('isChatLimit', () => {
  it('recognises the monthly chat limit refusal, and nothing else', () => {
    expect(isChatLimit(new SendError('This account has reached its monthly chat limit', 403))).toBe(true);
    expect(isChatLimit(new SendError('You do not have permission to do this', 403))).toBe(false);
    expect(isChatLimit(new SendError('This account has reached its monthly chat limit', 0))).toBe(false);
    expect(isChatLimit(new Error('This account has reached its monthly chat limit'))).toBe(false);
  });

  it('is not retried: deliver gives up at once so the widget can offer the offline form', async () => {
    let calls = 0;
    const rest = async (): Promise<MessageDto> => {
      calls++;
      throw new SendError('This account has reached its monthly chat limit', 403);
    };
    await expect(deliver({ client_id: 'c', message: 'hi' }, { socket: () => undefined, rest }, noSleep)).rejects.toSatisfy(isChatLimit);
    expect(calls).toBe(1);
  });
});

describe('deliver when rate limited', () => {
  it('waits at least the Retry-After the server gave before trying again, with the same client_id', async () => {
    const seen: string[] = [];
    let refused = false;
    const rest = async (o: Outgoing): Promise<MessageDto> => {
      seen.push(o.client_id);
      if (!refused) {
        refused = true;
        throw new SendError('Too many requests. Please try again later.', 429, 12);
      }
      return stored(o);
    };
    const waits: number[] = [];
    const out = await deliver({ client_id: 'rl', message: 'hi' }, { socket: () => undefined, rest }, { sleep: async (ms: number) => void waits.push(ms) });
    expect(out.client_id).toBe('rl');
    expect(seen).toEqual(['rl', 'rl']);
    expect(waits).toEqual([12_000]);
    expect(isRateLimited(new SendError('x', 429))).toBe(true);
    expect(isRateLimited(new SendError('x', 503))).toBe(false);
  });
});
