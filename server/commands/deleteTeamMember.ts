import { and, eq } from 'drizzle-orm';
import type { Tx } from '../db/client.js';
import { conversations, users } from '../db/schema.js';

/**
 * Removes a team member of the account. Their sessions go with them (auth_tokens cascade) and
 * their conversations become unassigned (conversations.assignee_id ON DELETE SET NULL).
 * `deleted` is false when no such member exists in this account (the owner is not a member).
 */
export async function deleteTeamMember(
  db: Tx,
  accountId: string,
  memberId: number,
): Promise<{ deleted: boolean; unassigned: number[] }> {
  // The conversations the foreign key will unassign, so their new audience can be told.
  const assigned = await db
    .select({ id: conversations.id })
    .from(conversations)
    .where(and(eq(conversations.accountId, accountId), eq(conversations.assigneeId, memberId)));
  const deleted = await db
    .delete(users)
    .where(and(eq(users.id, memberId), eq(users.accountId, accountId), eq(users.type, 'team_member')))
    .returning({ id: users.id });
  return { deleted: deleted.length > 0, unassigned: deleted.length > 0 ? assigned.map((c) => c.id) : [] };
}
