import { and, eq, gt } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { authTokens, users } from '../db/schema.js';
import { type TtlCache, ttlCache } from './ttlCache.js';

/**
 * A console session used this recently counts as an online agent even without a socket (the
 * console's 10-second polling fallback refreshes last_used_at every minute).
 */
export const AGENT_ONLINE_WINDOW_MS = 90_000;

/** A cluster-wide socket lookup per visitor message would be costly: answers are kept this long. */
const LIVE_CACHE_MS = 2000;

/** Live socket presence, registered by the real-time layer for its app's database. */
const livePresence = new WeakMap<Db, { check: (accountId: string) => Promise<boolean>; cache: TtlCache<string, boolean> }>();

/** A console socket of the account came or went on this node: forget the cached answer. */
export function forgetPresence(db: Db, accountId: string): void {
  livePresence.get(db)?.cache.forget(accountId);
}

export function useLivePresence(db: Db, check: (accountId: string) => Promise<boolean>): void {
  livePresence.set(db, { check, cache: ttlCache(LIVE_CACHE_MS) });
}

/** Whether any agent of the account is online: a connected console socket (any node), or a recently used session. */
export async function isAgentOnline(db: Db, accountId: string, now = new Date()): Promise<boolean> {
  const live = livePresence.get(db);
  if (live && (await live.cache.get(accountId, live.check))) return true;
  const [row] = await db
    .select({ id: authTokens.id })
    .from(authTokens)
    .innerJoin(users, eq(users.id, authTokens.userId))
    .where(and(eq(users.accountId, accountId), gt(authTokens.lastUsedAt, new Date(now.getTime() - AGENT_ONLINE_WINDOW_MS))))
    .limit(1);
  return row !== undefined;
}
