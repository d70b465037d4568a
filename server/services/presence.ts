import { and, eq, gt } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { authTokens, users } from '../db/schema.js';

/**
 * A console session used this recently counts as an online agent even without a socket (the
 * console's 10-second polling fallback refreshes last_used_at every minute).
 */
export const AGENT_ONLINE_WINDOW_MS = 90_000;

/** Live socket presence, registered by the real-time layer for its app's database. */
const livePresence = new WeakMap<Db, (accountId: string) => Promise<boolean>>();
const liveCaches = new WeakMap<Db, Map<string, unknown>>();

/** A console socket of the account came or went on this node: forget the cached answer. */
export function forgetPresence(db: Db, accountId: string): void {
  liveCaches.get(db)?.delete(accountId);
}

/** A cluster-wide socket lookup per visitor message would be costly: answers are kept this long. */
const LIVE_CACHE_MS = 2000;

export function useLivePresence(db: Db, check: (accountId: string) => Promise<boolean>): void {
  const cache = new Map<string, { at: number; online: Promise<boolean> }>();
  liveCaches.set(db, cache);
  livePresence.set(db, (accountId) => {
    const now = Date.now();
    const hit = cache.get(accountId);
    if (hit && now - hit.at < LIVE_CACHE_MS) return hit.online;
    if (cache.size > 10_000) cache.clear();
    const online = check(accountId);
    cache.set(accountId, { at: now, online });
    return online;
  });
}

/** Whether any agent of the account is online: a connected console socket (any node), or a recently used session. */
export async function isAgentOnline(db: Db, accountId: string, now = new Date()): Promise<boolean> {
  const live = livePresence.get(db);
  if (live && (await live(accountId))) return true;
  const [row] = await db
    .select({ id: authTokens.id })
    .from(authTokens)
    .innerJoin(users, eq(users.id, authTokens.userId))
    .where(and(eq(users.accountId, accountId), gt(authTokens.lastUsedAt, new Date(now.getTime() - AGENT_ONLINE_WINDOW_MS))))
    .limit(1);
  return row !== undefined;
}
