import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { SearchResultDto } from '@parley/shared';
import { type Db, rowsOf } from '../../db/client.js';
import { validationError } from '../../errors.js';
import type { Actor } from '../../policies/index.js';
import { visibleConversations, visibleVisitors } from '../../policies/conversations.js';
import { decodeKey, pageOf, pageQuery } from '../../presenters/page.js';

/**
 * GET /api/vms/search (issue 16): full text over the account's messages and its visitors' names
 * and emails, with PostgreSQL's built-in 'simple' configuration (no stemming, any language;
 * every word matches as a prefix), on PostgreSQL and PGlite alike, through the GIN indexes of
 * migrations/0017_inbox_paging.sql. Scoped by the audience rule (visibleConversations /
 * visibleVisitors): an Agent finds only what they may open. System lines are not searched;
 * notes are, for the team that sees the conversation (the console is their only reader).
 * Newest first, keyset-paged like every list.
 */
export const SEARCH_DEFAULT_LIMIT = 20;
const Q_REQUIRED = 'q must contain a word to search for';
export const searchQuery = pageQuery.extend({
  q: z.string({ error: Q_REQUIRED }).max(200, { error: 'q must be at most 200 characters' }),
});

const WORD = /[\p{L}\p{N}][\p{L}\p{N}@._+'-]*/gu;

/** The words searched for, lowercased, at most 8 (each a prefix). */
export function searchWords(q: string): string[] {
  return [...new Set((q.normalize('NFKC').match(WORD) ?? []).map((w) => w.toLowerCase().replace(/[.'_+@-]+$/, '')).filter(Boolean))].slice(0, 8);
}

/** A tsquery text matching every word as a prefix; the words hold no quote or operator. */
const tsQueryOf = (words: string[]) => words.map((w) => `'${w.replace(/'/g, "''")}':*`).join(' & ');

const SNIPPET_BEFORE = 40;
const SNIPPET_LENGTH = 160;
const wordChar = /[\p{L}\p{N}]/u;

/** Up to SNIPPET_LENGTH characters around the first match, and every match's [start, end) in it. */
export function snippetOf(text: string, words: string[]): { snippet: string; highlights: [number, number][] } {
  const lower = text.toLowerCase();
  const matches: [number, number][] = [];
  for (const w of words) {
    let from = 0;
    for (;;) {
      const at = lower.indexOf(w, from);
      if (at < 0) break;
      if (at === 0 || !wordChar.test(lower[at - 1]!)) matches.push([at, at + w.length]);
      from = at + 1;
    }
  }
  matches.sort((a, b) => a[0] - b[0]);
  const first = matches[0]?.[0] ?? 0;
  const start = text.length <= SNIPPET_LENGTH ? 0 : Math.max(0, Math.min(first - SNIPPET_BEFORE, text.length - SNIPPET_LENGTH));
  const end = Math.min(text.length, start + SNIPPET_LENGTH);
  const highlights: [number, number][] = [];
  for (const [a, b] of matches) {
    if (a < start || b > end) continue;
    const last = highlights.at(-1);
    if (last && a - start <= last[1]) last[1] = Math.max(last[1], b - start);
    else highlights.push([a - start, b - start]);
  }
  return { snippet: text.slice(start, end), highlights };
}

type Row = {
  k: string;
  at: Date | string;
  kind: number;
  mid: string | number;
  vid: string;
  conversation_id: number | null;
  text: string;
  visitor_name: string;
};

export async function searchAccount(db: Db, actor: Actor, query: z.output<typeof searchQuery>): Promise<{
  message: 'success';
  data: SearchResultDto[];
  next_cursor: string | null;
  has_more: boolean;
}> {
  const words = searchWords(query.q);
  if (words.length === 0) throw validationError({ q: [Q_REQUIRED] });
  const limit = query.limit ?? SEARCH_DEFAULT_LIMIT;
  const ts = sql`to_tsquery('simple'::regconfig, ${tsQueryOf(words)})`;
  // Each branch orders and limits itself (its newest limit + 1 after the cursor, from its own
  // index), so a common word never sorts every match of the union (bench/inbox/README.md).
  let afterMessage = sql`true`;
  let afterVisitor = sql`true`;
  if (query.cursor !== undefined) {
    const [k, kind, mid, vid] = decodeKey(query.cursor, 'tnns');
    const key = sql`(${k}::timestamptz, ${kind}::int, ${mid}::bigint, ${vid}::text)`;
    afterMessage = sql`(messages.created_at, 1, messages.id, conversations.visitor_id::text) < ${key}`;
    afterVisitor = sql`(visitors.created_at, 0, 0::bigint, visitors.id::text) < ${key}`;
  }
  const res = await db.execute<Row>(sql`
    select x.at::text as k, x.at, x.kind, x.mid, x.vid, x.conversation_id, x.text, x.visitor_name from (
      (select messages.created_at as at, 1 as kind, messages.id as mid, conversations.visitor_id::text as vid,
             conversations.id as conversation_id, messages.message as text, visitors.name as visitor_name
      from messages
      join conversations on conversations.id = messages.conversation_id
      join visitors on visitors.id = conversations.visitor_id
      where messages.account_id = ${actor.accountId}
        and to_tsvector('simple'::regconfig, messages.message) @@ ${ts}
        and messages.sender_type <> 'system'
        and ${visibleConversations(actor)}
        and ${afterMessage}
      order by messages.created_at desc, messages.id desc
      limit ${limit + 1})
      union all
      (with matched as materialized (
        -- The GIN index first (names and emails matching are few): ordered by created_at, the
        -- planner may otherwise walk every visitor of the account looking for 21 that match.
        select id from visitors
        where to_tsvector('simple'::regconfig, visitors.name || ' ' || visitors.email) @@ ${ts} and visitors.account_id = ${actor.accountId}
      )
      select visitors.created_at, 0, 0::bigint, visitors.id::text, conversations.id, visitors.name || ' ' || visitors.email, visitors.name
      from matched
      join visitors on visitors.id = matched.id
      left join conversations on conversations.visitor_id = visitors.id
      where ${visibleVisitors(actor)}
        and ${afterVisitor}
      order by visitors.created_at desc, visitors.id desc
      limit ${limit + 1})
    ) x
    order by x.at desc, x.kind desc, x.mid desc, x.vid desc
    limit ${limit + 1}`);
  const rows = rowsOf<Row>(res);
  const page = pageOf(rows, limit, (r) => [r.k, Number(r.kind), Number(r.mid), r.vid]);
  return {
    message: 'success',
    data: page.rows.map((r) => ({
      visitor_id: r.vid,
      conversation_id: r.conversation_id === null ? null : Number(r.conversation_id),
      message_id: Number(r.kind) === 1 ? Number(r.mid) : null,
      ...snippetOf(r.text.trim(), words),
      created_at: new Date(r.at).toISOString(),
      visitor_name: r.visitor_name,
    })),
    next_cursor: page.nextCursor,
    has_more: page.hasMore,
  };
}
