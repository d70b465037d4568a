import { type SQL, and, eq, inArray, or, sql } from 'drizzle-orm';
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

/** Live socket presence (the ids of members with a console socket), registered by the real-time layer for its app's database. */
const livePresence = new WeakMap<Db, { check: (accountId: string) => Promise<number[]>; cache: TtlCache<string, number[]> }>();

/**
 * Accounts known to have an agent online, until when (per database): asked on every visitor
 * message (offline-message rule, the assistant), so a yes is kept `LIVE_CACHE_MS`. A no is never
 * kept: an agent who just signed in counts at once.
 */
const onlineUntil = new WeakMap<Db, Map<string, number>>();

/** A console socket of the account came or went on this node, or a member changed availability: forget the cached answer. */
export function forgetPresence(db: Db, accountId: string): void {
  livePresence.get(db)?.cache.forget(accountId);
  onlineUntil.get(db)?.delete(accountId);
}

export function useLivePresence(db: Db, check: (accountId: string) => Promise<number[]>): void {
  livePresence.set(db, { check, cache: ttlCache(LIVE_CACHE_MS) });
}

/** Members of the account with a connected console socket (any node); empty without the real-time layer. */
export async function liveMemberIds(db: Db, accountId: string): Promise<number[]> {
  const live = livePresence.get(db);
  return live ? live.cache.get(accountId, live.check) : [];
}

/**
 * Members who count as present: a connected console socket, or a recently used session (the
 * polling fallback). The caller adds its own conditions (availability, role) on `users`.
 */
export function presentMembers(live: number[], now = new Date()): SQL {
  const recent = sql`exists (select 1 from ${authTokens} where ${authTokens.userId} = ${users.id} and ${authTokens.lastUsedAt} > ${new Date(now.getTime() - AGENT_ONLINE_WINDOW_MS).toISOString()}::timestamptz)`;
  return live.length > 0 ? (or(inArray(users.id, live), recent) as SQL) : recent;
}

/**
 * Whether any member of the account is online for visitors: present (socket or recent session)
 * and available ('online', not 'away'; PRODUCT.md section 11).
 */
export async function isAgentOnline(db: Db, accountId: string, at?: Date): Promise<boolean> {
  let known = onlineUntil.get(db);
  if (!at && (known?.get(accountId) ?? 0) > Date.now()) return true;
  const live = await liveMemberIds(db, accountId);
  const [row] = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.accountId, accountId), eq(users.availability, 'online'), presentMembers(live, at ?? new Date())))
    .limit(1);
  if (row === undefined || at) return row !== undefined;
  if (!known) onlineUntil.set(db, (known = new Map()));
  if (known.size >= 10_000) known.clear();
  known.set(accountId, Date.now() + LIVE_CACHE_MS);
  return true;
}
