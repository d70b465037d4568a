import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { WidgetWritesConfig } from '../config.js';
import type { Db } from '../db/client.js';
import { LaneSlots, laneOfAccount } from '../db/fair.js';
import { conversations } from '../db/schema.js';
import { HttpError } from '../errors.js';
import { TOO_MANY_REQUESTS } from './rateLimit.js';

/**
 * Each node's share of widget write work per account (issue 11: another tenant's console stays
 * fast while one account's widget is flooded with accepted calls — new visitors, first messages,
 * offline forms, load events: each is accepted by every budget, but one new chat costs a dozen
 * statements). At most WIDGET_WRITES_PER_ACCOUNT of one account's widget writes run at once on a
 * node, each slot busy at most WIDGET_WRITE_SHARE percent of the time (it rests after each write in
 * proportion to how long the write took); the rest wait their turn in the account's
 * lane (db/fair.ts LaneSlots) instead of taking the node's CPU and database at once, so another account's call meets a few of the flood's
 * calls in progress, not all of them. A caller not yet chatting waits at most
 * WIDGET_WRITE_WAIT_MS, then gets 429 with Retry-After ("widget-writes"). A visitor already
 * chatting (its conversation exists) is not held by the lane at all: PRODUCT.md section 11 (a
 * widget key's ceiling never refuses visitors already chatting), and a live chat's messages are
 * the real-time path (issue 15), bounded per visitor by the widget budgets, not queued behind
 * the account's new chats. Defaults (config.ts): one slot, busy at most 25% of the time once the
 * lane's first second of rests is spent (WIDGET_WRITE_BURST_MS: a visitor's few writes, or a handful
 * of visitors at once, never wait), 2 s wait.
 */
export function createWidgetWrites(config: WidgetWritesConfig): LaneSlots {
  return new LaneSlots(
    config.perAccount,
    config.maxWaitMs,
    (seconds) => Object.assign(new HttpError(429, TOO_MANY_REQUESTS, undefined, seconds), { limit: 'widget-writes' }),
    config.sharePercent / 100,
    config.burstMs,
  );
}

/** Whether the visitor's chat is under way: it has a conversation (its writes are never refused by the lane). */
async function hasConversation(db: Db, visitorId: string): Promise<boolean> {
  const [row] = await db.select({ id: conversations.id }).from(conversations).where(eq(conversations.visitorId, visitorId)).limit(1);
  return row !== undefined;
}

/**
 * Runs one widget write of `accountId` in its turn on this node; a visitor already chatting
 * (`chatting`, or read from the database for `visitorId` when the lane is busy) runs at once.
 * `startsChat` (a visitor's message or offline form): unless the visitor is chatting, the write
 * starts a chat and first spends a point of the account's new-chat budget (widgetLimits.newChat:
 * 429 with Retry-After once spent), so whether the visitor is chatting is read for it, unless the
 * caller just read it (`chatting` true or false: the visitor's token was read with it, in the same
 * request; a conversation opened in the millisecond since, by an agent, makes at worst one 429
 * with Retry-After, which the widget sends again).
 */
export async function widgetWrite<T>(
  app: FastifyInstance,
  who: { accountId: string; visitorId?: string; chatting?: boolean | undefined; startsChat?: boolean },
  fn: () => Promise<T>,
): Promise<T> {
  if (who.chatting) return fn();
  const slots = app.widgetWrites;
  const lane = laneOfAccount(who.accountId);
  if (who.startsChat && who.visitorId !== undefined) {
    if (who.chatting === undefined && (await hasConversation(app.db, who.visitorId))) return fn();
    await app.widgetLimits.newChat(who.accountId);
  } else {
    // Nothing waits in the lane: no need to ask whether the visitor is chatting.
    const { busy, waiting } = slots.load(lane);
    const free = busy < slots.slots && waiting === 0;
    if (!free && who.visitorId !== undefined && who.chatting === undefined && (await hasConversation(app.db, who.visitorId))) return fn();
  }
  const release = await slots.enter(lane);
  try {
    return await fn();
  } finally {
    release();
  }
}
