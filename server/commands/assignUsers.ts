import { and, eq, inArray, notInArray } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { conversations, users } from '../db/schema.js';
import { notFound, validationError } from '../errors.js';
import { UUID, visibleConversations } from '../policies/conversations.js';
import type { Actor } from '../policies/index.js';

const USERS_NOT_FOUND = 'One or more users were not found';

/**
 * Makes `visitorIds` exactly the website users assigned to the member: their conversations get
 * the member as assignee, the member's other conversations become unassigned. All or nothing:
 * an id that is not a visitor with a conversation in the actor's account changes nothing (422).
 */
/** Returns the ids of the conversations whose assignee may have changed. */
export async function assignUsers(db: Db, actor: Actor, memberId: number, visitorIds: string[]): Promise<number[]> {
  // Malformed ids would make PostgreSQL throw on the uuid column; they are simply "not found".
  if (!visitorIds.every((id) => UUID.test(id))) throw validationError({ user_ids: [USERS_NOT_FOUND] });
  const wanted = [...new Set(visitorIds.map((id) => id.toLowerCase()))];

  return db.transaction(async (tx) => {
    // Locked so a concurrent delete of the member waits instead of breaking the assignee foreign key.
    const [member] = await tx
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.id, memberId), eq(users.accountId, actor.accountId), eq(users.type, 'team_member')))
      .for('update');
    if (!member) throw notFound();

    const scope = visibleConversations(actor);
    if (wanted.length > 0) {
      const found = await tx
        .select({ visitorId: conversations.visitorId })
        .from(conversations)
        .where(and(scope, inArray(conversations.visitorId, wanted)));
      if (new Set(found.map((f) => f.visitorId)).size !== wanted.length) {
        throw validationError({ user_ids: [USERS_NOT_FOUND] });
      }
    }

    const theirs = and(scope, eq(conversations.assigneeId, member.id));
    const released = await tx
      .update(conversations)
      .set({ assigneeId: null })
      .where(wanted.length > 0 ? and(theirs, notInArray(conversations.visitorId, wanted)) : theirs)
      .returning({ id: conversations.id });
    const taken =
      wanted.length > 0
        ? await tx
            .update(conversations)
            .set({ assigneeId: member.id })
            .where(and(scope, inArray(conversations.visitorId, wanted)))
            .returning({ id: conversations.id })
        : [];
    return [...released, ...taken].map((c) => c.id);
  });
}
