import { CURSOR_INVALID } from '@parley/shared';
import type { Db, Tx } from '../../db/client.js';
import { decodeCursor, readWithCursor } from '../../db/commitCursor.js';
import { validationError } from '../../errors.js';
import { conversationMessages } from '../../presenters/message.js';

/**
 * GET messages for the console and the widget alike: everything, or since `since_id` (SPEC.md
 * section 7), or since `cursor` (commit-safe, db/commitCursor.ts). `find` looks up the
 * conversation in the same snapshot, and the answer carries `next_cursor` for the next poll.
 * The widget passes `forVisitor`: private notes never reach it (policies/messages.ts).
 */
export async function listMessages<F extends { conversation: { id: number; visitorId: string } | null }>(
  db: Db,
  query: { since_id?: number | undefined; cursor?: string | undefined },
  find: (tx: Tx) => Promise<F>,
  opts: { forVisitor?: boolean } = {},
) {
  let snapshot: string | undefined;
  if (query.cursor !== undefined) {
    snapshot = decodeCursor(query.cursor) ?? undefined;
    if (!snapshot) throw validationError({ cursor: [CURSOR_INVALID] });
  }
  const { result, nextCursor } = await readWithCursor(db, async (tx) => {
    const found = await find(tx);
    const data = found.conversation ? await conversationMessages(tx, found.conversation, { sinceId: snapshot ? undefined : query.since_id, snapshot, forVisitor: opts.forVisitor === true }) : [];
    return { found, data };
  });
  return { ...result, nextCursor, incremental: snapshot !== undefined || query.since_id !== undefined };
}
