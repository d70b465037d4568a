import { and, eq } from 'drizzle-orm';
import type { Tx } from '../db/client.js';
import { users } from '../db/schema.js';

/**
 * Removes a team member of the account. Their sessions go with them (auth_tokens cascade) and
 * their conversations become unassigned (conversations.assignee_id ON DELETE SET NULL).
 * Returns false when no such member exists in this account (the owner is not a member).
 */
export async function deleteTeamMember(db: Tx, accountId: string, memberId: number): Promise<boolean> {
  const deleted = await db
    .delete(users)
    .where(and(eq(users.id, memberId), eq(users.accountId, accountId), eq(users.type, 'team_member')))
    .returning({ id: users.id });
  return deleted.length > 0;
}
