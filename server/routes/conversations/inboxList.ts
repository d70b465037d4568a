import { type SQL, and, eq, isNull, sql } from 'drizzle-orm';
import { z } from 'zod';
import { CURSOR_INVALID, type ConversationCountsDto, type ConversationDto, type LabelDto, labelFilterQuery } from '@parley/shared';
import type { Db, Tx } from '../../db/client.js';
import { committedSince, decodeCursor, readWithCursor } from '../../db/commitCursor.js';
import { conversationCounts, conversations, users, visitors } from '../../db/schema.js';
import { validationError } from '../../errors.js';
import { can, type Actor } from '../../policies/index.js';
import { visibleConversations } from '../../policies/conversations.js';
import { presentConversation } from '../../presenters/conversation.js';
import { SPEC_CAP, decodeKey, pageOf, pageQuery } from '../../presenters/page.js';
import { hasLabel, labelsOf } from '../labels/conversationLabels.js';

/**
 * GET /api/vms/conversations (issue 16): keyset pages in the order asked, filters, live counts
 * from conversation_counts (kept by a trigger), and a commit-safe change cursor.
 */
export const conversationListQuery = pageQuery.extend({
  status: z.enum(['open', 'pending', 'resolved'], { error: 'status must be open, pending or resolved' }).optional(),
  assignee: z.enum(['me', 'unassigned', 'all'], { error: 'assignee must be me, unassigned or all' }).default('all'),
  sort: z.enum(['newest', 'oldest', 'waiting'], { error: 'sort must be newest, oldest or waiting' }).default('newest'),
  /** The `changes_cursor` of an earlier answer: only what changed since (the other parameters are ignored). */
  changes_since: z.string({ error: CURSOR_INVALID }).max(16_384, { error: CURSOR_INVALID }).regex(/^[A-Za-z0-9_-]+$/, { error: CURSOR_INVALID }).optional(),
  /** Only conversations carrying this label (issue 16, routes/labels). */
  label: labelFilterQuery.optional(),
});
export type ConversationListQuery = z.output<typeof conversationListQuery>;

/** The most changed conversations one changes_since answer carries; beyond, `has_more` says reload the list. */
export const CHANGES_CAP = 500;

/** Sort keys: SQL text must match the indexes of migrations/0017_inbox_paging.sql exactly. */
const lastKey = sql`coalesce(${conversations.lastMessageAt}, '-infinity'::timestamptz)`;
const waitKey = sql`coalesce(${conversations.waitingSince}, 'infinity'::timestamptz)`;
const ORDERS = {
  newest: { key: lastKey, dir: sql`desc`, cmp: sql`<` },
  oldest: { key: lastKey, dir: sql`asc`, cmp: sql`>` },
  waiting: { key: waitKey, dir: sql`asc`, cmp: sql`>` },
} as const;

/** Status buckets as the console shows them; E's migration maps the old 'closed' to 'resolved'. */
const BUCKET: Record<string, keyof ConversationCountsDto['all']> = { open: 'open', pending: 'pending', resolved: 'resolved', closed: 'resolved' };

const zero = () => ({ open: 0, pending: 0, resolved: 0 });

/** Mine / Unassigned / All (what the actor may see) x status, from the counters: a handful of rows. */
export async function conversationCountsOf(db: Db | Tx, actor: Actor): Promise<ConversationCountsDto> {
  const rows = await db
    .select({ key: conversationCounts.assigneeKey, status: conversationCounts.status, n: conversationCounts.n })
    .from(conversationCounts)
    .where(eq(conversationCounts.accountId, actor.accountId));
  const counts = { mine: zero(), unassigned: zero(), all: zero() };
  const readAll = can(actor, 'conversations.readAll');
  for (const r of rows) {
    const bucket = BUCKET[r.status];
    if (!bucket) continue;
    if (r.key === actor.id) counts.mine[bucket] += r.n;
    if (r.key === 0) counts.unassigned[bucket] += r.n;
    if (readAll || r.key === actor.id || r.key === 0) counts.all[bucket] += r.n;
  }
  return counts;
}

function totalOf(counts: ConversationCountsDto, q: ConversationListQuery): number {
  const bucket = q.assignee === 'me' ? counts.mine : q.assignee === 'unassigned' ? counts.unassigned : counts.all;
  return q.status ? bucket[q.status] : bucket.open + bucket.pending + bucket.resolved;
}

function baseQuery(db: Tx, key: SQL, where: SQL | undefined) {
  return db
    .select({ conversation: conversations, name: visitors.name, email: visitors.email, assigneeName: users.name, sortKey: sql<string>`(${key})::text` })
    .from(conversations)
    .innerJoin(visitors, eq(visitors.id, conversations.visitorId))
    .leftJoin(users, eq(users.id, conversations.assigneeId))
    .where(where);
}

type ListRow = { conversation: typeof conversations.$inferSelect; name: string; email: string; assigneeName: string | null };
/** The rows as DTOs, each with its labels (one query for the page). */
async function present(db: Db | Tx, rows: ListRow[]): Promise<ConversationDto[]> {
  const labelled: Map<number, LabelDto[]> = await labelsOf(db, rows.map((r) => r.conversation.id));
  return rows.map((r) => presentConversation(r.conversation, r, labelled.get(r.conversation.id) ?? []));
}

export interface ConversationListAnswer {
  message: 'success';
  data: ConversationDto[];
  next_cursor: string | null;
  has_more: boolean;
  total: number;
  counts: ConversationCountsDto;
  /** Pass as `changes_since` to poll for what changed after this answer (commit-safe). */
  changes_cursor: string;
  /** changes_since answers only: changed conversations the asker may no longer see. */
  removed_ids?: number[];
}

/**
 * A page of the list. Without `limit` (the SPEC call) it answers up to SPEC_CAP conversations,
 * newest first. Reads in one snapshot whose cursor comes back as `changes_cursor`.
 */
export async function listConversations(db: Db, actor: Actor, q: ConversationListQuery): Promise<ConversationListAnswer> {
  if (q.changes_since !== undefined) return listChanges(db, actor, q.changes_since);
  const order = ORDERS[q.sort];
  const limit = q.limit ?? SPEC_CAP;
  let after: SQL | undefined;
  if (q.cursor !== undefined) {
    const [sort, key, id] = decodeKey(q.cursor, 'stn');
    if (sort !== q.sort) throw validationError({ cursor: ['cursor is not valid'] });
    after = sql`(${order.key}, ${conversations.id}) ${order.cmp} (${key}::timestamptz, ${id}::int)`;
  }
  const filters: (SQL | undefined)[] = [visibleConversations(actor), after];
  if (q.status) filters.push(sql`${conversations.status} = ${q.status}`);
  if (q.assignee === 'me') filters.push(eq(conversations.assigneeId, actor.id));
  if (q.assignee === 'unassigned') filters.push(isNull(conversations.assigneeId));
  if (q.label !== undefined) filters.push(hasLabel(q.label));

  const { result, nextCursor: changesCursor } = await readWithCursor(db, async (tx) => {
    const rows = await baseQuery(tx, order.key, and(...filters))
      .orderBy(sql`${order.key} ${order.dir}`, sql`${conversations.id} ${order.dir}`)
      .limit(limit + 1);
    // The counts table knows no labels: a label filter's total is counted (the filter without the cursor).
    const labelTotal =
      q.label === undefined
        ? undefined
        : ((await tx.select({ n: sql<number>`count(*)::int` }).from(conversations).where(and(...filters.filter((f) => f !== after))))[0]?.n ?? 0);
    return { rows, counts: await conversationCountsOf(tx, actor), labelTotal };
  });
  const page = pageOf(result.rows, limit, (r) => [q.sort, r.sortKey, r.conversation.id]);
  return {
    message: 'success',
    data: await present(db, page.rows),
    next_cursor: page.nextCursor,
    has_more: page.hasMore,
    total: result.labelTotal ?? totalOf(result.counts, q),
    counts: result.counts,
    changes_cursor: changesCursor,
  };
}

/**
 * Conversations whose row committed since the cursor's snapshot (any writer: the trigger of
 * 0017 stamps every insert and update). Visible ones come in `data`; ones the asker no longer
 * sees (reassigned away) in `removed_ids`. Over CHANGES_CAP changes: `has_more`, reload the list.
 */
async function listChanges(db: Db, actor: Actor, cursor: string): Promise<ConversationListAnswer> {
  const snapshot = decodeCursor(cursor);
  if (!snapshot) throw validationError({ changes_since: [CURSOR_INVALID] });
  const changed = committedSince(sql`${conversations}.${sql.identifier('xact_id')}`, snapshot);
  const { result, nextCursor } = await readWithCursor(db, async (tx) => {
    const rows = await baseQuery(tx, lastKey, and(eq(conversations.accountId, actor.accountId), changed))
      .orderBy(sql`${lastKey} desc`, sql`${conversations.id} desc`)
      .limit(CHANGES_CAP + 1);
    const visible = new Set(
      rows.length === 0
        ? []
        : (
            await tx
              .select({ id: conversations.id })
              .from(conversations)
              .where(and(visibleConversations(actor), sql`${conversations.id} in ${rows.map((r) => r.conversation.id)}`))
          ).map((r) => r.id),
    );
    return { rows, visible, counts: await conversationCountsOf(tx, actor) };
  });
  const hasMore = result.rows.length > CHANGES_CAP;
  const rows = result.rows.slice(0, CHANGES_CAP);
  const { counts } = result;
  return {
    message: 'success',
    data: await present(db, rows.filter((r) => result.visible.has(r.conversation.id))),
    removed_ids: rows.filter((r) => !result.visible.has(r.conversation.id)).map((r) => r.conversation.id),
    next_cursor: null,
    has_more: hasMore,
    total: counts.all.open + counts.all.pending + counts.all.resolved,
    counts,
    changes_cursor: nextCursor,
  };
}
