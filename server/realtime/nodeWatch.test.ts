import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { afterEach, describe, expect, it } from 'vitest';
import { TEST_REDIS_URL } from '../test/harness.js';
import { watchNodes } from './nodeWatch.js';

/** Two nodes' heartbeats on the local Redis, on a channel of this test's own. */
type Client = ReturnType<typeof createClient>;
const clients: Client[] = [];
async function redisPair(): Promise<{ pub: Client; sub: Client }> {
  const pub = createClient({ url: TEST_REDIS_URL });
  pub.on('error', () => {});
  const sub = pub.duplicate();
  sub.on('error', () => {});
  try {
    await Promise.all([pub.connect(), sub.connect()]);
  } catch (err) {
    throw new Error(`this test needs Redis at ${TEST_REDIS_URL} (start it: redis-server --daemonize yes): ${err}`);
  }
  clients.push(pub, sub);
  return { pub, sub };
}
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => (c.isOpen ? c.quit() : undefined)));
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// Generous against a busy CI machine: both nodes share this test's event loop.
const opts = { heartbeatMs: 100, deadAfterMs: 1500, onError: () => {} };

describe('node heartbeats', () => {
  it('tells a node when another stops without a goodbye, once', async () => {
    const channel = `test:nodes:${randomUUID()}`;
    const lost: string[] = [];
    const a = await watchNodes({ ...(await redisPair()), ...opts, channel, onNodeLost: (id) => lost.push(id) });
    const bClients = await redisPair();
    await watchNodes({ ...bClients, ...opts, channel, onNodeLost: () => {} });
    await sleep(300);
    expect(lost).toEqual([]); // both alive
    // B dies: its connections drop, no goodbye.
    bClients.pub.destroy();
    bClients.sub.destroy();
    const deadline = Date.now() + 6000;
    while (lost.length === 0 && Date.now() < deadline) await sleep(50);
    expect(lost).toHaveLength(1);
    await sleep(2000);
    expect(lost).toHaveLength(1);
    await a.close();
  });

  it('says nothing when a node closes cleanly', async () => {
    const channel = `test:nodes:${randomUUID()}`;
    const lost: string[] = [];
    const a = await watchNodes({ ...(await redisPair()), ...opts, channel, onNodeLost: (id) => lost.push(id) });
    const b = await watchNodes({ ...(await redisPair()), ...opts, channel, onNodeLost: () => {} });
    await sleep(300);
    await b.close();
    await sleep(2500);
    expect(lost).toEqual([]);
    await a.close();
  });
});
