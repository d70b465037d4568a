import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { rowsOf } from '../db/client.js';

/**
 * `count` visitors of an account, each with a conversation whose last message is `i` minutes
 * before `base` (distinct times, so orders are known), straight in SQL: list tests need many.
 * Returns the conversations newest first: [{ id, visitorId }].
 */
export async function seedConversations(
  app: FastifyInstance,
  accountId: string,
  count: number,
  opts: { base?: Date; name?: string; status?: string; assigneeId?: number | null; message?: string } = {},
): Promise<{ id: number; visitorId: string }[]> {
  const base = (opts.base ?? new Date()).toISOString();
  const res = await app.database.db.execute<{ id: number; visitor_id: string }>(sql`
    with v as (
      insert into visitors (account_id, token_hash, name, email, created_at)
      select ${accountId}::uuid, md5(random()::text || clock_timestamp()::text || i), ${opts.name ?? 'Seed'} || ' ' || i, 'seed' || i || '@example.com',
             ${base}::timestamptz - make_interval(mins => i)
      from generate_series(1, ${count}) i
      returning id, created_at
    )
    insert into conversations (account_id, visitor_id, status, assignee_id, last_message, last_message_at, created_at)
    select ${accountId}::uuid, v.id, ${opts.status ?? 'open'}, ${opts.assigneeId ?? null}::int, ${opts.message ?? 'seeded'}, v.created_at, v.created_at
    from v
    returning id, visitor_id, last_message_at`);
  const rows = rowsOf<{ id: number; visitor_id: string; last_message_at: string | Date }>(res);
  return rows
    .sort((a, b) => new Date(b.last_message_at).getTime() - new Date(a.last_message_at).getTime())
    .map((r) => ({ id: Number(r.id), visitorId: r.visitor_id }));
}
