import type { Server } from 'socket.io';
import { type TtlCache, ttlCache } from '../services/ttlCache.js';
import { rooms } from './audience.js';

/**
 * Which visitors have the widget open: a live widget socket on any node. The one answer to the
 * question for the visitor lists, the dashboard, the offline-reply job and the widget's offline
 * push (the console's side is services/presence.ts).
 */

type Io = Pick<Server, 'in'>;

/** A cluster-wide socket lookup per list page would be costly: answers are kept this long. */
const ONLINE_CACHE_MS = 2_000;
const caches = new WeakMap<Io, TtlCache<string, Set<string>>>();

const visitorIdOf = (data: unknown) => (data as { visitor?: { id?: string } } | undefined)?.visitor?.id;

/** The account's visitors with a widget socket (a little stale at most; best effort: an unanswered node counts as none). */
export function onlineVisitorIds(io: Io, accountId: string): Promise<Set<string>> {
  let cache = caches.get(io);
  if (!cache) caches.set(io, (cache = ttlCache(ONLINE_CACHE_MS)));
  return cache.get(accountId, async () => {
    const sockets = await io
      .in(rooms.widgets(accountId))
      .fetchSockets()
      .catch(() => []);
    return new Set(sockets.map((s) => visitorIdOf(s.data)).filter((id): id is string => !!id));
  });
}

/** Whether this visitor has the widget open right now (any node; uncached: a tab just closed counts). Rejects when a node cannot be asked. */
export async function isVisitorOnline(io: Io, visitorId: string): Promise<boolean> {
  return (await io.in(rooms.visitor(visitorId)).fetchSockets()).length > 0;
}
