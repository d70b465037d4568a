import { and, eq } from 'drizzle-orm';
import { DateTime } from 'luxon';
import {
  ASSIGNEE_NOT_FOUND,
  type ConversationStatus,
  SNOOZE_IN_PAST,
  SNOOZE_TOO_FAR,
  type SnoozePreset,
} from '@parley/shared';
import type { Db, Tx } from '../db/client.js';
import { accounts, conversations, users } from '../db/schema.js';
import { type JobQueue, JOB_TOPIC } from '../jobs/types.js';
import { writeOutbox } from '../outbox/outbox.js';
import { forbidden, notFound, validationError } from '../errors.js';
import { type Actor, can } from '../policies/index.js';
import { findVisibleVisitor } from '../policies/conversations.js';
import type { ConversationRow } from '../presenters/conversation.js';
import type { MessageRow } from '../presenters/message.js';
import type { VisitorRow } from '../presenters/visitor.js';
import type { DomainEvents } from '../services/domainEvents.js';
import { insertSystemLine, lines } from './systemLine.js';

interface Deps {
  db: Db;
  events: DomainEvents;
  jobs?: Pick<JobQueue, 'wake'> | undefined;
}

/** What a lifecycle change leaves behind; the caller presents `conversation` with the assignee's name. */
export interface LifecycleResult {
  conversation: ConversationRow;
  visitor: VisitorRow;
  assigneeName: string | null;
}

const HOUR_MS = 3_600_000;
const MAX_SNOOZE_MS = 366 * 24 * HOUR_MS;
/** The job that wakes a snoozed conversation at its time (server/jobs/lifecycle.ts). */
export const WAKE_JOB = 'conversation.wake';

/** The end of a snooze preset: in 1 hour, or at 09:00 tomorrow / next Monday in the account's time zone. */
export function snoozePresetEnd(preset: SnoozePreset, now: Date, timeZone: string): Date {
  if (preset === '1h') return new Date(now.getTime() + HOUR_MS);
  const local = DateTime.fromJSDate(now).setZone(timeZone).startOf('day').set({ hour: 9 });
  const day = preset === 'tomorrow' ? local.plus({ days: 1 }) : local.plus({ weeks: 1 }).startOf('week').set({ hour: 9 });
  return day.toJSDate();
}

async function nameOf(tx: Tx, userId: number | null): Promise<string | null> {
  if (userId === null) return null;
  const [row] = await tx.select({ name: users.name }).from(users).where(eq(users.id, userId));
  return row?.name ?? null;
}

/** The visible conversation, locked for this transaction; 404 when there is none (or not the actor's to see). */
async function lockVisible(tx: Tx, actor: Actor, visitorId: string): Promise<{ visitor: VisitorRow; conversation: ConversationRow }> {
  const { visitor, conversation } = await findVisibleVisitor(tx as Db, actor, visitorId);
  if (!conversation) throw notFound('Conversation not found');
  const [locked] = await tx.select().from(conversations).where(eq(conversations.id, conversation.id)).for('update');
  if (!locked) throw notFound('Conversation not found');
  return { visitor, conversation: locked };
}

/** The columns a move to `status` sets; leaving 'resolved' starts a new stretch (PRODUCT.md section 11). */
export function statusPatch(from: ConversationRow, status: ConversationStatus, now: Date, snoozedUntil: Date | null = null) {
  const newStretch = from.status === 'resolved' && status !== 'resolved';
  return {
    status,
    snoozedUntil: status === 'pending' ? snoozedUntil : null,
    resolvedAt: status === 'resolved' ? now : null,
    ...(newStretch ? { openedAt: now } : {}),
  };
}

/**
 * POST /conversations/:visitorId/status: resolve, reopen or snooze (until a time, or until the
 * visitor writes) a conversation the actor may see. A change writes a system line and, for a
 * timed snooze, the job that wakes it; nothing is written when nothing changes.
 */
export async function changeConversationStatus(
  deps: Deps,
  actor: Actor,
  visitorId: string,
  input: { status: ConversationStatus; snoozedUntil?: Date | null | undefined; snooze?: SnoozePreset | undefined },
  now = new Date(),
): Promise<LifecycleResult> {
  const outcome = await deps.db.transaction(async (tx) => {
    const { visitor, conversation } = await lockVisible(tx, actor, visitorId);
    let until: Date | null = input.snoozedUntil ?? null;
    if (input.snooze) {
      const [account] = await tx.select({ timeZone: accounts.timeZone }).from(accounts).where(eq(accounts.id, actor.accountId));
      until = snoozePresetEnd(input.snooze, now, account?.timeZone ?? 'UTC');
    }
    if (until && until.getTime() <= now.getTime()) throw validationError({ snoozed_until: [SNOOZE_IN_PAST] });
    if (until && until.getTime() - now.getTime() > MAX_SNOOZE_MS) throw validationError({ snoozed_until: [SNOOZE_TOO_FAR] });

    const same = conversation.status === input.status && (conversation.snoozedUntil?.getTime() ?? null) === (until?.getTime() ?? null);
    if (same) return { visitor, conversation, line: null, woke: false };

    const [updated] = await tx.update(conversations).set(statusPatch(conversation, input.status, now, until)).where(eq(conversations.id, conversation.id)).returning();
    let text: string;
    if (input.status === 'resolved') text = lines.resolved(actor.name);
    else if (input.status === 'open') text = lines.reopened(actor.name);
    else if (until) {
      const [account] = await tx.select({ timeZone: accounts.timeZone }).from(accounts).where(eq(accounts.id, actor.accountId));
      text = lines.snoozedUntil(actor.name, until, account?.timeZone ?? 'UTC');
    } else text = lines.snoozedUntilReply(actor.name);
    const line = await insertSystemLine(tx, conversation, text, actor.id);
    // Each timed snooze has its own wake-up; one that finds the conversation no longer due does nothing.
    const woke = until
      ? (await writeOutbox(tx, [
          { topic: JOB_TOPIC, name: WAKE_JOB, payload: { accountId: actor.accountId, conversationId: conversation.id }, delayMs: until.getTime() - Date.now() },
        ])) > 0
      : false;
    return { visitor, conversation: updated!, line, woke };
  });
  if (outcome.woke) deps.jobs?.wake();
  const assigneeName = await nameOf(deps.db, outcome.conversation.assigneeId);
  if (outcome.line) {
    await deps.events.emit('conversation.changed', {
      accountId: actor.accountId,
      conversation: outcome.conversation,
      visitor: outcome.visitor,
      previousAssigneeId: outcome.conversation.assigneeId,
      assigneeName,
      line: outcome.line,
      lineAuthorName: actor.name,
    });
  }
  return { conversation: outcome.conversation, visitor: outcome.visitor, assigneeName };
}

/**
 * POST /conversations/:visitorId/assign. Owner/Admin: to any active member of the account, or
 * nobody. Agent: claim an unassigned conversation (their own id) or hand back their own (null);
 * anything else 403. An assignee who is not an active member of the account is 422.
 */
export async function assignConversation(deps: Deps, actor: Actor, visitorId: string, userId: number | null): Promise<LifecycleResult> {
  const outcome = await deps.db.transaction(async (tx) => {
    const { visitor, conversation } = await lockVisible(tx, actor, visitorId);
    if (!can(actor, 'conversations.assignAny')) {
      const claim = userId === actor.id && conversation.assigneeId === null;
      const handBack = userId === null && conversation.assigneeId === actor.id;
      const unchanged = userId === conversation.assigneeId && (userId === actor.id || userId === null);
      if (!claim && !handBack && !unchanged) throw forbidden();
    }
    let assignee: { id: number; name: string } | null = null;
    if (userId !== null) {
      const [row] = await tx
        .select({ id: users.id, name: users.name })
        .from(users)
        .where(and(eq(users.id, userId), eq(users.accountId, actor.accountId), eq(users.status, 'active')))
        .for('share');
      if (!row) throw validationError({ user_id: [ASSIGNEE_NOT_FOUND] });
      assignee = row;
    }
    if (conversation.assigneeId === userId) return { visitor, conversation, line: null as MessageRow | null, assigneeName: assignee?.name ?? null };
    const [updated] = await tx.update(conversations).set({ assigneeId: userId }).where(eq(conversations.id, conversation.id)).returning();
    const text = assignee ? lines.assigned(actor.name, assignee.name) : lines.unassigned(actor.name, await nameOf(tx, conversation.assigneeId));
    const line = await insertSystemLine(tx, conversation, text, actor.id);
    return { visitor, conversation: updated!, line, assigneeName: assignee?.name ?? null, previous: conversation.assigneeId };
  });
  if (outcome.line) {
    await deps.events.emit('conversation.changed', {
      accountId: actor.accountId,
      conversation: outcome.conversation,
      visitor: outcome.visitor,
      previousAssigneeId: 'previous' in outcome ? (outcome.previous ?? null) : outcome.conversation.assigneeId,
      assigneeName: outcome.assigneeName,
      line: outcome.line,
      lineAuthorName: actor.name,
    });
  }
  return { conversation: outcome.conversation, visitor: outcome.visitor, assigneeName: outcome.assigneeName };
}
