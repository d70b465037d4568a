import { randomUUID } from 'node:crypto';
import type { createClient } from 'redis';

type RedisClient = ReturnType<typeof createClient>;

export const NODES_CHANNEL = 'parley:nodes';
/** How often each node says it is alive. */
export const HEARTBEAT_MS = 1000;
/** A node not heard from for this long is taken for dead. */
export const DEAD_AFTER_MS = 4000;

/**
 * Every node publishes a heartbeat on Redis and listens to the others'. A node that stops
 * without saying goodbye (killed, crashed, cut off) may have stored messages whose pushes never
 * left it: `onNodeLost` lets the survivors ask their clients to refetch from the database.
 * A node that closes cleanly says goodbye (its pushes were sent before it closed).
 */
export async function watchNodes(deps: {
  pub: RedisClient;
  sub: RedisClient;
  onNodeLost: (nodeId: string) => void;
  onError: (err: unknown) => void;
  channel?: string;
  heartbeatMs?: number;
  deadAfterMs?: number;
}): Promise<{ close(): Promise<void> }> {
  const { pub, sub, channel = NODES_CHANNEL, heartbeatMs = HEARTBEAT_MS, deadAfterMs = DEAD_AFTER_MS } = deps;
  const self = randomUUID();
  const lastSeen = new Map<string, number>();

  await sub.subscribe(channel, (raw) => {
    let msg: { id?: unknown; bye?: unknown };
    try {
      msg = JSON.parse(raw);
    } catch {
      return;
    }
    if (typeof msg.id !== 'string' || msg.id === self) return;
    if (msg.bye) lastSeen.delete(msg.id);
    else lastSeen.set(msg.id, Date.now());
  });

  // Back from a Redis outage: nobody could be heard meanwhile; start counting afresh.
  sub.on('ready', () => {
    for (const id of lastSeen.keys()) lastSeen.set(id, Date.now());
  });

  const say = (bye = false) => pub.publish(channel, JSON.stringify(bye ? { id: self, bye } : { id: self }));
  const beat = setInterval(() => {
    // While Redis is away nobody hears anybody: judge only with a working connection.
    if (!pub.isReady || !sub.isReady) return;
    say().catch(deps.onError);
    const now = Date.now();
    for (const [id, at] of lastSeen) {
      if (now - at <= deadAfterMs) continue;
      lastSeen.delete(id);
      deps.onNodeLost(id);
    }
  }, heartbeatMs);
  beat.unref();
  if (pub.isReady) await say().catch(deps.onError);

  return {
    async close() {
      clearInterval(beat);
      if (pub.isReady) await say(true).catch(deps.onError);
      if (sub.isReady) await sub.unsubscribe(channel).catch(deps.onError);
    },
  };
}
