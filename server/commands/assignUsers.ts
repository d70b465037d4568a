import { and, asc, eq, inArray, or } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { conversations, users, visitors } from '../db/schema.js';
import { notFound, validationError } from '../errors.js';
import { UUID, visibleConversations } from '../policies/conversations.js';
import type { Actor } from '../policies/index.js';
import type { ConversationRow } from '../presenters/conversation.js';
import type { MessageRow } from '../presenters/message.js';
import type { VisitorRow } from '../presenters/visitor.js';
import type { DomainEvents } from '../services/domainEvents.js';
import { insertSystemLine, lines } from './systemLine.js';

const USERS_NOT_FOUND = 'One or more users were not found';

interface Change {
  conversation: ConversationRow;
  visitor: VisitorRow;
  previousAssigneeId: number | null;
  line: MessageRow;
}

/**
 * Makes `visitorIds` exactly the website users assigned to the member (the Team dialog): their
 * conversations get the member as assignee, the member's other conversations become unassigned.
 * All or nothing: an id that is not a visitor with a conversation in the actor's account changes
 * nothing (422). Every conversation whose assignee changes gets the same system line as the
 * header's assign ("Owen assigned the conversation to Ada", "Owen unassigned Ada") and the same
 * push, after the commit. Returns the ids of the conversations that changed.
 */
export async function assignUsers(deps: { db: Db; events: DomainEvents }, actor: Actor, memberId: number, visitorIds: string[]): Promise<number[]> {
  // Malformed ids would make PostgreSQL throw on the uuid column; they are simply "not found".
  if (!visitorIds.every((id) => UUID.test(id))) throw validationError({ user_ids: [USERS_NOT_FOUND] });
  const wanted = [...new Set(visitorIds.map((id) => id.toLowerCase()))];

  const { changes, memberName } = await deps.db.transaction(async (tx) => {
    // Locked so a concurrent delete of the member waits instead of breaking the assignee foreign key.
    const [member] = await tx
      .select({ id: users.id, name: users.name })
      .from(users)
      .where(and(eq(users.id, memberId), eq(users.accountId, actor.accountId), eq(users.type, 'team_member')))
      .for('update');
    if (!member) throw notFound();

    const scope = visibleConversations(actor);
    // The member's conversations and the wanted ones, locked against a concurrent assign.
    const rows = await tx
      .select({ conversation: conversations, visitor: visitors })
      .from(conversations)
      .innerJoin(visitors, eq(visitors.id, conversations.visitorId))
      .where(and(scope, wanted.length > 0 ? or(eq(conversations.assigneeId, member.id), inArray(conversations.visitorId, wanted)) : eq(conversations.assigneeId, member.id)))
      // In id order, as every writer of several conversations (db/conversationLocks.ts): a
      // message batch holding one of them makes this wait, not deadlock.
      .orderBy(asc(conversations.id))
      .for('update', { of: conversations });
    const wantedSet = new Set(wanted);
    if (rows.filter((r) => wantedSet.has(r.conversation.visitorId)).length !== wanted.length) {
      throw validationError({ user_ids: [USERS_NOT_FOUND] });
    }

    const release = rows.filter((r) => r.conversation.assigneeId === member.id && !wantedSet.has(r.conversation.visitorId));
    const take = rows.filter((r) => r.conversation.assigneeId !== member.id && wantedSet.has(r.conversation.visitorId));
    const released =
      release.length > 0
        ? await tx.update(conversations).set({ assigneeId: null }).where(inArray(conversations.id, release.map((r) => r.conversation.id))).returning()
        : [];
    const taken =
      take.length > 0
        ? await tx.update(conversations).set({ assigneeId: member.id }).where(inArray(conversations.id, take.map((r) => r.conversation.id))).returning()
        : [];
    const before = new Map(rows.map((r) => [r.conversation.id, r]));
    const out: Change[] = [];
    for (const conversation of released) {
      const line = await insertSystemLine(tx, conversation, lines.unassigned(actor.name, member.name), actor.id);
      out.push({ conversation, visitor: before.get(conversation.id)!.visitor, previousAssigneeId: member.id, line });
    }
    for (const conversation of taken) {
      const was = before.get(conversation.id)!;
      const line = await insertSystemLine(tx, conversation, lines.assigned(actor.name, member.name), actor.id);
      out.push({ conversation, visitor: was.visitor, previousAssigneeId: was.conversation.assigneeId, line });
    }
    return { changes: out, memberName: member.name };
  });

  for (const change of changes) {
    await deps.events.emit('conversation.changed', {
      accountId: actor.accountId,
      ...change,
      assigneeName: change.conversation.assigneeId === null ? null : memberName,
      lineAuthorName: actor.name,
    });
  }
  return changes.map((c) => c.conversation.id);
}
