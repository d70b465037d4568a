import { and, eq, inArray, isNotNull, lte, min, sql } from 'drizzle-orm';
import { z } from 'zod';
import { statusPatch } from '../commands/conversationLifecycle.js';
import { lines } from '../commands/systemLine.js';
import type { Db } from '../db/client.js';
import { lockConversationsInOrder } from '../db/conversationLocks.js';
import { accounts, conversations, messages, users, visitors } from '../db/schema.js';
import type { DomainEvents } from '../services/domainEvents.js';
import { DeferJob, defineJob, type JobContext, type JobQueue } from './types.js';

const HOUR_MS = 3_600_000;
/** Conversations auto-resolved per run; a bigger backlog continues at once in the next run. */
const AUTO_RESOLVE_BATCH = 500;
/** A wake-up that comes a little early waits for its time; one far off belongs to an older snooze. */
const EARLY_WAKE_MS = 60_000;

export const autoResolveKey = (accountId: string) => `conversations.autoResolve:${accountId}`;
/** Last activity of a conversation's stretch: its last message, or its (re)opening if later. */
const lastActivity = sql<Date>`greatest(${conversations.lastMessageAt}, ${conversations.openedAt})`;

async function pushChanged(ctx: JobContext, rows: { conversation: typeof conversations.$inferSelect; line: typeof messages.$inferSelect }[]) {
  const events = ctx.events;
  if (!events || rows.length === 0) return;
  const ids = rows.map((r) => r.conversation.visitorId);
  const found = await ctx.db.select().from(visitors).where(inArray(visitors.id, ids));
  const byId = new Map(found.map((v) => [v.id, v]));
  const assignees = rows.map((r) => r.conversation.assigneeId).filter((id): id is number => id !== null);
  const names = new Map(
    assignees.length ? (await ctx.db.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, assignees))).map((u) => [u.id, u.name]) : [],
  );
  for (const { conversation, line } of rows) {
    const visitor = byId.get(conversation.visitorId);
    if (!visitor) continue;
    await events.emit('conversation.changed', {
      accountId: conversation.accountId,
      conversation,
      visitor,
      previousAssigneeId: conversation.assigneeId,
      assigneeName: conversation.assigneeId === null ? null : (names.get(conversation.assigneeId) ?? null),
      line,
      lineAuthorName: null,
    });
  }
}

/** A snooze ended: the conversation opens again, unless it was reopened, resolved or snoozed anew meanwhile. */
export async function wakeConversation(p: { accountId: string; conversationId: number }, ctx: JobContext, now = new Date()): Promise<void> {
  const woke = await ctx.db.transaction(async (tx) => {
    const [c] = await tx
      .select()
      .from(conversations)
      .where(and(eq(conversations.id, p.conversationId), eq(conversations.accountId, p.accountId), eq(conversations.status, 'pending'), isNotNull(conversations.snoozedUntil)))
      .for('update');
    if (!c?.snoozedUntil) return [];
    const dueIn = c.snoozedUntil.getTime() - now.getTime();
    if (dueIn > 0) {
      if (dueIn <= EARLY_WAKE_MS) throw new DeferJob(c.snoozedUntil.getTime());
      return []; // snoozed again until later: that snooze has its own wake-up
    }
    const [conversation] = await tx.update(conversations).set(statusPatch(c, 'open', now)).where(eq(conversations.id, c.id)).returning();
    const [line] = await tx.insert(messages).values({ accountId: c.accountId, conversationId: c.id, senderType: 'system', message: lines.reopenedByItself() }).returning();
    return [{ conversation: conversation!, line: line! }];
  });
  await pushChanged(ctx, woke);
}

/**
 * One account's auto-resolve: open conversations silent for the account's hours are resolved
 * with a system line; the job then waits (DeferJob, keeping its dedupe key) until the next one
 * is due, and ends when none is open. Pending conversations wait for their snooze or the visitor.
 */
export async function autoResolve(p: { accountId: string }, ctx: JobContext, now = new Date()): Promise<void> {
  const [account] = await ctx.db.select({ hours: accounts.autoResolveHours }).from(accounts).where(eq(accounts.id, p.accountId));
  const hours = account?.hours;
  if (!hours) return;
  const cutoff = new Date(now.getTime() - hours * HOUR_MS);
  const open = and(eq(conversations.accountId, p.accountId), eq(conversations.status, 'open'));
  const resolved = await ctx.db.transaction(async (tx) => {
    const due = await lockConversationsInOrder(tx, and(open, lte(lastActivity, cutoff)), AUTO_RESOLVE_BATCH);
    if (due.length === 0) return [];
    const rows = await tx
      .update(conversations)
      .set({ status: 'resolved', resolvedAt: now, snoozedUntil: null })
      .where(and(open, inArray(conversations.id, due)))
      .returning();
    if (rows.length === 0) return [];
    const text = lines.autoResolved(hours);
    const inserted = await tx
      .insert(messages)
      .values(rows.map((c) => ({ accountId: c.accountId, conversationId: c.id, senderType: 'system' as const, message: text })))
      .returning();
    const lineOf = new Map(inserted.map((m) => [m.conversationId, m]));
    return rows.map((conversation) => ({ conversation, line: lineOf.get(conversation.id)! }));
  });
  await pushChanged(ctx, resolved);
  if (resolved.length === AUTO_RESOLVE_BATCH) throw new DeferJob(Date.now());
  const [next] = await ctx.db.select({ at: min(lastActivity) }).from(conversations).where(open);
  if (next?.at) throw new DeferJob(Math.max(Date.now() + 1000, new Date(next.at).getTime() + hours * HOUR_MS));
}

export const lifecycleJobs = [
  defineJob({
    name: 'conversation.wake',
    schema: z.object({ accountId: z.uuid(), conversationId: z.number().int().positive() }),
    handle: (p, ctx) => wakeConversation(p, ctx),
  }),
  defineJob({
    name: 'conversations.autoResolve',
    schema: z.object({ accountId: z.uuid() }),
    handle: (p, ctx) => autoResolve(p, ctx),
  }),
] as const;

type Queue = Pick<JobQueue, 'enqueue' | 'cancel'>;

/**
 * Starts the account's auto-resolve job when it has the setting (joins the pending one, if
 * any). `restart`: the setting changed, so the pending job (waiting for the old hours) is replaced.
 */
export async function scheduleAutoResolve(deps: { db: Db; jobs: Queue }, accountId: string, opts: { restart?: boolean } = {}): Promise<void> {
  const [account] = await deps.db.select({ hours: accounts.autoResolveHours }).from(accounts).where(eq(accounts.id, accountId));
  if (opts.restart) await deps.jobs.cancel(autoResolveKey(accountId));
  if (!account?.hours) return;
  await deps.jobs.enqueue('conversations.autoResolve', { accountId }, { dedupeKey: autoResolveKey(accountId), delayMs: opts.restart ? 0 : account.hours * HOUR_MS });
}

/** A conversation that opens (new, or reopened) may start its account's auto-resolve job. */
export function subscribeLifecycle(deps: { db: Db; events: DomainEvents; jobs: Queue }): void {
  deps.events.on('message.stored', (e) => (e.conversationCreated ? scheduleAutoResolve(deps, e.accountId) : undefined), { background: true });
  deps.events.on('conversation.changed', (e) => (e.conversation.status === 'open' ? scheduleAutoResolve(deps, e.accountId) : undefined), { background: true });
}
