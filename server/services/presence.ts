import { and, eq, gt } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { authTokens, users } from '../db/schema.js';

/** How recently a console session must have been used for its agent to count as online. */
export const AGENT_ONLINE_WINDOW_MS = 5 * 60_000;

/**
 * Whether any agent of the account is online. Until live sockets track presence, a console
 * session used within the window counts as online.
 */
export async function isAgentOnline(db: Db, accountId: string, now = new Date()): Promise<boolean> {
  const [row] = await db
    .select({ id: authTokens.id })
    .from(authTokens)
    .innerJoin(users, eq(users.id, authTokens.userId))
    .where(and(eq(users.accountId, accountId), gt(authTokens.lastUsedAt, new Date(now.getTime() - AGENT_ONLINE_WINDOW_MS))))
    .limit(1);
  return row !== undefined;
}
