import { CURSOR_INVALID } from '@parley/shared';
import type { Db, Tx } from '../../db/client.js';
import { decodeCursor, readWithCursor } from '../../db/commitCursor.js';
import { validationError } from '../../errors.js';
import { conversationMessages } from '../../presenters/message.js';
import { SPEC_CAP } from '../../presenters/page.js';

/**
 * GET messages for the console and the widget alike: since `since_id` (SPEC.md section 7), or
 * since `cursor` (commit-safe, db/commitCursor.ts), or else the newest page: `limit` messages
 * (at most SPEC_CAP without it) before `before`, ascending, with `hasMore` (issue 16). `find`
 * looks up the conversation in the same snapshot, and the answer carries `next_cursor` for the
 * next poll.
 * The widget passes `forVisitor`: private notes never reach it (policies/messages.ts).
 */
export async function listMessages<F extends { conversation: { id: number; visitorId: string } | null }>(
  db: Db,
  query: { since_id?: number | undefined; cursor?: string | undefined; limit?: number | undefined; before?: number | undefined },
  find: (tx: Tx) => Promise<F>,
  opts: { forVisitor?: boolean } = {},
) {
  let snapshot: string | undefined;
  if (query.cursor !== undefined) {
    snapshot = decodeCursor(query.cursor) ?? undefined;
    if (!snapshot) throw validationError({ cursor: [CURSOR_INVALID] });
  }
  const incremental = snapshot !== undefined || query.since_id !== undefined;
  const limit = query.limit ?? SPEC_CAP;
  const page = incremental ? undefined : { limit, before: query.before };
  const { result, nextCursor } = await readWithCursor(db, async (tx) => {
    const found = await find(tx);
    const data = found.conversation
      ? await conversationMessages(tx, found.conversation, { sinceId: snapshot ? undefined : query.since_id, snapshot, page, forVisitor: opts.forVisitor === true })
      : [];
    return { found, data };
  });
  const hasMore = page !== undefined && result.data.length > limit;
  const data = hasMore ? result.data.slice(1) : result.data;
  // An older page (`before`) is not an opening of the conversation: it does not mark it read.
  return { found: result.found, data, nextCursor, hasMore, incremental: incremental || query.before !== undefined };
}
