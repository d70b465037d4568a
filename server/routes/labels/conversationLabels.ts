import { type SQL, and, asc, eq, inArray, notInArray, sql } from 'drizzle-orm';
import type { LabelDto } from '@parley/shared';
import type { Db, Tx } from '../../db/client.js';
import { conversationLabels, conversations, labels } from '../../db/schema.js';
import { presentLabel } from '../../presenters/inbox.js';

/** Each listed conversation's labels (one query for the page), by conversation id; names in order. */
export async function labelsOf(db: Db | Tx, conversationIds: number[]): Promise<Map<number, LabelDto[]>> {
  const byConversation = new Map<number, LabelDto[]>();
  if (conversationIds.length === 0) return byConversation;
  const rows = await db
    .select({ conversationId: conversationLabels.conversationId, id: labels.id, name: labels.name, color: labels.color })
    .from(conversationLabels)
    .innerJoin(labels, eq(labels.id, conversationLabels.labelId))
    .where(inArray(conversationLabels.conversationId, conversationIds))
    .orderBy(asc(sql`lower(${labels.name})`), asc(labels.id));
  for (const r of rows) {
    const list = byConversation.get(r.conversationId) ?? [];
    list.push(presentLabel(r));
    byConversation.set(r.conversationId, list);
  }
  return byConversation;
}

/** The list's `label=<id>` filter: conversations carrying that label (index conversation_labels_label_idx). */
export function hasLabel(labelId: number): SQL {
  return sql`exists (select 1 from ${conversationLabels} where ${conversationLabels.labelId} = ${labelId} and ${conversationLabels.conversationId} = ${conversations.id})`;
}

/** Replaces a conversation's labels with `labelIds` (all already checked to be the account's). */
export async function setConversationLabels(tx: Tx, conversationId: number, labelIds: number[]): Promise<void> {
  await tx
    .delete(conversationLabels)
    .where(and(eq(conversationLabels.conversationId, conversationId), labelIds.length ? notInArray(conversationLabels.labelId, labelIds) : undefined));
  if (labelIds.length) {
    await tx
      .insert(conversationLabels)
      .values(labelIds.map((labelId) => ({ conversationId, labelId })))
      .onConflictDoNothing();
  }
  // Touch the conversation: its change stamp (migration 0017's trigger) makes the new labels
  // reach consoles polling `changes_since`.
  await tx.update(conversations).set({ id: sql`${conversations.id}` }).where(eq(conversations.id, conversationId));
}
