import { asc, type SQL } from 'drizzle-orm';
import type { Tx } from './client.js';
import { conversations } from './schema.js';

/**
 * Locks the conversations `where` selects (at most `limit`), in id order, and returns their ids.
 *
 * Every writer of several conversations in one transaction or statement takes its row locks in
 * id order, as the message batches do (commands/sendMessage.ts, APPEND_QUERY): two writers in
 * the same order wait for each other, while two in different orders deadlock, and PostgreSQL
 * aborts one (a user's call answering 500). An UPDATE alone locks in its scan's order, so a
 * transaction that writes several conversations locks them here first.
 */
export async function lockConversationsInOrder(tx: Tx, where: SQL | undefined, limit?: number): Promise<number[]> {
  const query = tx.select({ id: conversations.id }).from(conversations).where(where).orderBy(asc(conversations.id));
  const rows = await (limit === undefined ? query : query.limit(limit)).for('no key update');
  return rows.map((r) => r.id);
}
