import { type SQL, and, eq, inArray, notInArray, sql, sum } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { VisitorListAnswer } from '@parley/shared';
import type { Db } from '../../db/client.js';
import { conversationCounts, conversations, visitorCounts, visitors } from '../../db/schema.js';
import { can, type Actor } from '../../policies/index.js';
import { presentVisitor } from '../../presenters/visitor.js';
import { SPEC_CAP, decodeKey, pageOf, pageQuery } from '../../presenters/page.js';
import { onlineVisitorIds } from '../../realtime/visitorPresence.js';
import { searchWords } from '../conversations/search.js';

/**
 * GET /api/vms/visitor (issue 16): keyset pages newest first (index visitors_account_created_id_idx,
 * or visitors_account_country_created_idx with `country`), filters, and totals read from the
 * counters of migrations/0021 and 0017 whenever the filters allow (never a count of the tenant).
 */
const flag = (name: string) =>
  z.enum(['true', 'false'], { error: `${name} must be true or false` }).transform((v) => v === 'true');

export const visitorListQuery = pageQuery.extend({
  /** Name or email: every word a prefix, all required (the search's full-text rule). */
  q: z.string({ error: 'q must be text' }).max(200, { error: 'q must be at most 200 characters' }).optional(),
  online: flag('online').optional(),
  /** The visitor's country code as stored ('' for unknown). */
  country: z.string({ error: 'country must be text' }).max(64, { error: 'country must be at most 64 characters' }).optional(),
  has_conversation: flag('has_conversation').optional(),
});
export type VisitorListQuery = z.output<typeof visitorListQuery>;

/** A tsquery text matching every word as a prefix (the words hold no quote or operator), as routes/conversations/search.ts builds it. */
const tsQueryOf = (words: string[]) => words.map((w) => `'${w.replace(/'/g, "''")}':*`).join(' & ');

const hasConversation = sql`exists (select 1 from conversations c where c.visitor_id = ${visitors.id})`;

/** What an actor may see of visitors, without a join: an Agent never sees one whose conversation is another member's. */
function visibleVisitorRows(actor: Actor): SQL {
  const inAccount = eq(visitors.accountId, actor.accountId);
  if (can(actor, 'conversations.readAll')) return inAccount;
  return and(
    inAccount,
    sql`not exists (select 1 from conversations c where c.visitor_id = ${visitors.id} and c.assignee_id is not null and c.assignee_id <> ${actor.id})`,
  ) as SQL;
}

async function countersOf(db: Db, actor: Actor) {
  const [byCountry, byAssignee] = await Promise.all([
    db.select({ country: visitorCounts.country, n: visitorCounts.n }).from(visitorCounts).where(eq(visitorCounts.accountId, actor.accountId)),
    db
      .select({ key: conversationCounts.assigneeKey, n: sum(conversationCounts.n).mapWith(Number) })
      .from(conversationCounts)
      .where(eq(conversationCounts.accountId, actor.accountId))
      .groupBy(conversationCounts.assigneeKey),
  ]);
  const visitorsAll = byCountry.reduce((s, r) => s + r.n, 0);
  const conversationsAll = byAssignee.reduce((s, r) => s + r.n, 0);
  // One conversation per visitor: an Agent sees every visitor but those whose conversation is another member's.
  const hiddenFromMe = can(actor, 'conversations.readAll') ? 0 : byAssignee.filter((r) => r.key !== 0 && r.key !== actor.id).reduce((s, r) => s + r.n, 0);
  return {
    countries: byCountry.filter((r) => r.country !== '' && r.n > 0).length,
    byCountry: new Map(byCountry.map((r) => [r.country, r.n])),
    visible: visitorsAll - hiddenFromMe,
    withConversation: conversationsAll - hiddenFromMe,
    withoutConversation: visitorsAll - conversationsAll,
  };
}

/** A page of the visitors the actor may see. Without `limit` (the SPEC call): the newest SPEC_CAP. */
export async function listVisitors(app: FastifyInstance, actor: Actor, q: VisitorListQuery): Promise<VisitorListAnswer> {
  const db = app.db;
  const limit = q.limit ?? SPEC_CAP;
  const words = q.q === undefined ? [] : searchWords(q.q);
  const online = await onlineVisitorIds(app.io, actor.accountId);

  const filters: (SQL | undefined)[] = [visibleVisitorRows(actor)];
  if (words.length > 0) filters.push(sql`to_tsvector('simple'::regconfig, ${visitors.name} || ' ' || ${visitors.email}) @@ to_tsquery('simple'::regconfig, ${tsQueryOf(words)})`);
  if (q.country !== undefined) filters.push(eq(visitors.country, q.country));
  if (q.has_conversation !== undefined) filters.push(q.has_conversation ? hasConversation : sql`not ${hasConversation}`);
  const onlineList = [...online];
  const noneOnline = q.online === true && onlineList.length === 0;
  if (q.online === true && onlineList.length > 0) filters.push(inArray(visitors.id, onlineList));
  if (q.online === false && onlineList.length > 0) filters.push(notInArray(visitors.id, onlineList));
  let after: SQL | undefined;
  if (q.cursor !== undefined) {
    const [at, id] = decodeKey(q.cursor, 'ts');
    after = sql`(${visitors.createdAt}, ${visitors.id}) < (${at}::timestamptz, ${id}::uuid)`;
  }

  const counters = await countersOf(db, actor);
  if (noneOnline) return { message: 'success', data: [], next_cursor: null, has_more: false, total: 0, countries: counters.countries };

  const rows = await db
    .select({ visitor: visitors, key: sql<string>`${visitors.createdAt}::text` })
    .from(visitors)
    .where(and(...filters, after))
    .orderBy(sql`${visitors.createdAt} desc`, sql`${visitors.id} desc`)
    .limit(limit + 1);
  const page = pageOf(rows, limit, (r) => [r.key, r.visitor.id]);
  // Which of the page's visitors have a conversation: one lookup by the unique visitor_id index
  // (an EXISTS in the select list is planned as a hashed scan of the tenant's conversations).
  const chatting = new Set(
    page.rows.length === 0
      ? []
      : (await db.select({ id: conversations.visitorId }).from(conversations).where(inArray(conversations.visitorId, page.rows.map((r) => r.visitor.id)))).map((r) => r.id),
  );

  // Totals from the counters when the filters are theirs; otherwise counted (search and presence).
  let total: number;
  const onlyCountry = q.country !== undefined && words.length === 0 && q.online === undefined && q.has_conversation === undefined;
  const noFilter = words.length === 0 && q.online === undefined && q.country === undefined;
  if (noFilter && q.has_conversation === undefined) total = counters.visible;
  else if (noFilter) total = q.has_conversation ? counters.withConversation : counters.withoutConversation;
  else if (onlyCountry && can(actor, 'conversations.readAll')) total = counters.byCountry.get(q.country!) ?? 0;
  else if (!page.hasMore && q.cursor === undefined) total = page.rows.length;
  else {
    const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(visitors).where(and(...filters));
    total = row?.n ?? 0;
  }
  return {
    message: 'success',
    data: page.rows.map((r) => ({ ...presentVisitor(r.visitor), online: online.has(r.visitor.id), has_conversation: chatting.has(r.visitor.id) })),
    next_cursor: page.nextCursor,
    has_more: page.hasMore,
    total,
    countries: counters.countries,
  };
}
