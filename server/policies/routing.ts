import { and, asc, eq, isNull, or, sql } from 'drizzle-orm';
import type { Db, Tx } from '../db/client.js';
import { accounts, conversations, roles, users } from '../db/schema.js';
import { liveMemberIds, presentMembers } from '../services/presence.js';

/**
 * Routing of new conversations (issue 16, PRODUCT.md section 11), beside the audience rule
 * (policies/conversations.ts): with the account's `round_robin` on, a visitor's new conversation
 * goes to the next Agent, in id order after the last one routed to, who is
 * - an active team member with the Agent role,
 * - available ('online', not 'away') and present (a console socket, or a session used recently),
 * - under their `max_open_chats` cap (open conversations assigned to them), when they have one.
 * Nobody eligible: the conversation stays unassigned (every Agent sees it, as without routing).
 */
export async function routeNewConversation(db: Db, tx: Tx, accountId: string, now = new Date()): Promise<{ id: number; name: string } | null> {
  const [setting] = await tx.select({ on: accounts.roundRobin }).from(accounts).where(eq(accounts.id, accountId));
  if (!setting?.on) return null;
  // The pointer is read and moved under the account row's lock: two new conversations at once go to two Agents.
  const [account] = await tx.select({ last: accounts.routedUserId }).from(accounts).where(eq(accounts.id, accountId)).for('update');
  const live = await liveMemberIds(db, accountId);
  const openChats = sql`(select count(*) from ${conversations} where ${conversations.assigneeId} = ${users.id} and ${conversations.status} = 'open')`;
  const candidates = await tx
    .select({ id: users.id, name: users.name })
    .from(users)
    .innerJoin(roles, eq(roles.id, users.roleId))
    .where(
      and(
        eq(users.accountId, accountId),
        eq(users.type, 'team_member'),
        eq(roles.name, 'Agent'),
        eq(users.status, 'active'),
        eq(users.availability, 'online'),
        presentMembers(live, now),
        or(isNull(users.maxOpenChats), sql`${openChats} < ${users.maxOpenChats}`),
      ),
    )
    .orderBy(asc(users.id));
  if (candidates.length === 0) return null;
  const last = account?.last ?? 0;
  const pick = candidates.find((c) => c.id > last) ?? candidates[0]!;
  await tx.update(accounts).set({ routedUserId: pick.id }).where(eq(accounts.id, accountId));
  return pick;
}
