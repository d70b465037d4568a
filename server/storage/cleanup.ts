import { and, asc, eq, gte, isNull, lt, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db, Tx } from '../db/client.js';
import { accountStorage, aiChatMessages, aiSources, messages, storedFiles, widgetSettings } from '../db/schema.js';
import { DeferJob, defineJob, type JobContext } from '../jobs/types.js';
import { storageAt } from './backend.js';
import { thumbnailPathOf } from './paths.js';

/** Rows looked at per query; a sweep goes on until none is left. */
const BATCH = 200;
/** A message is written just after its file: look for it from a little before the file. */
const CLOCK_SLACK = sql`interval '5 minutes'`;

/** Removes one stored file: its record and the account's usage in one transaction, then the bytes (in the backend opened for `root`). */
export async function removeStoredFile(db: Db, root: string, rel: string): Promise<void> {
  await db.transaction(async (tx) => {
    const [gone] = await tx.delete(storedFiles).where(eq(storedFiles.path, rel)).returning();
    if (!gone) return;
    await tx
      .update(accountStorage)
      .set({ bytes: sql`greatest(${accountStorage.bytes} - ${gone.bytes}, 0)`, files: sql`greatest(${accountStorage.files} - 1, 0)` })
      .where(eq(accountStorage.accountId, gone.accountId));
  });
  const files = storageAt(root);
  await files.delete(rel);
  await files.delete(thumbnailPathOf(rel));
}

type Holder = { heldBy: 'message'; messageId: number } | { heldBy: 'avatar' | 'assistant' | 'source' } | undefined;

/** What refers to a stored file: a chat message, the widget's avatar, an assistant message or a knowledge source (issue 17). */
export async function holderOf(db: Tx, file: { accountId: string; path: string; createdAt: Date }): Promise<Holder> {
  const [message] = await db
    .select({ id: messages.id })
    .from(messages)
    .where(
      and(
        eq(messages.accountId, file.accountId),
        gte(messages.createdAt, sql`${file.createdAt.toISOString()}::timestamptz - ${CLOCK_SLACK}`),
        eq(messages.filePath, file.path),
      ),
    )
    .limit(1);
  if (message) return { heldBy: 'message', messageId: message.id };
  const [avatar] = await db
    .select({ id: widgetSettings.accountId })
    .from(widgetSettings)
    .where(and(eq(widgetSettings.accountId, file.accountId), eq(widgetSettings.avatar, file.path)));
  if (avatar) return { heldBy: 'avatar' };
  const [assistant] = await db
    .select({ id: aiChatMessages.id })
    .from(aiChatMessages)
    .where(and(eq(aiChatMessages.accountId, file.accountId), eq(aiChatMessages.filePath, file.path)))
    .limit(1);
  if (assistant) return { heldBy: 'assistant' };
  const [source] = await db
    .select({ id: aiSources.id })
    .from(aiSources)
    .where(and(eq(aiSources.accountId, file.accountId), eq(aiSources.filePath, file.path)))
    .limit(1);
  if (source) return { heldBy: 'source' };
  return undefined;
}

export interface SweepResult {
  removed: string[];
  kept: number;
  /** When the oldest file still too young to judge may be judged; null when none is left. */
  nextAt: Date | null;
}

/**
 * One account's cleanup: every file older than the grace period that nothing refers to (an
 * upload whose message was never written: a visitor who never became a chat, a failed send,
 * a lost race) is removed; files whose message was deleted since (with its conversation,
 * visitor or account) are removed too. Files something holds are marked and kept.
 */
export async function sweepAccount(db: Db, root: string, accountId: string, graceMs: number, now = new Date()): Promise<SweepResult> {
  const cutoff = new Date(now.getTime() - graceMs);
  const removed: string[] = [];
  let kept = 0;
  for (;;) {
    const batch = await db
      .select()
      .from(storedFiles)
      .where(and(eq(storedFiles.accountId, accountId), isNull(storedFiles.checkedAt), lt(storedFiles.createdAt, cutoff)))
      .orderBy(asc(storedFiles.createdAt))
      .limit(BATCH);
    for (const file of batch) {
      const holder = await holderOf(db, file);
      if (!holder) {
        await removeStoredFile(db, root, file.path);
        removed.push(file.path);
        continue;
      }
      kept++;
      await db
        .update(storedFiles)
        .set({ checkedAt: now, heldBy: holder.heldBy, messageId: holder.heldBy === 'message' ? holder.messageId : null })
        .where(eq(storedFiles.id, file.id));
    }
    if (batch.length < BATCH) break;
  }
  // Files whose message is gone (ON DELETE SET NULL cleared message_id).
  for (;;) {
    const released = await db
      .select({ path: storedFiles.path })
      .from(storedFiles)
      .where(and(eq(storedFiles.accountId, accountId), eq(storedFiles.heldBy, 'message'), isNull(storedFiles.messageId)))
      .limit(BATCH);
    for (const file of released) {
      await removeStoredFile(db, root, file.path);
      removed.push(file.path);
    }
    if (released.length < BATCH) break;
  }
  const [young] = await db
    .select({ createdAt: storedFiles.createdAt })
    .from(storedFiles)
    .where(and(eq(storedFiles.accountId, accountId), isNull(storedFiles.checkedAt)))
    .orderBy(asc(storedFiles.createdAt))
    .limit(1);
  return { removed, kept, nextAt: young ? new Date(young.createdAt.getTime() + graceMs) : null };
}

const sweepPayload = z.object({ accountId: z.uuid(), graceMs: z.number().int().positive() });

/** The upload cleanup job: queued (once per account at a time) by each stored file. */
export const storageJobs = [
  defineJob({
    name: 'storage.sweep',
    schema: sweepPayload,
    async handle(p, ctx: JobContext) {
      const result = await sweepAccount(ctx.db, ctx.storageRoot, p.accountId, p.graceMs);
      if (result.removed.length) ctx.log.info({ accountId: p.accountId, removed: result.removed.length }, 'unused uploads removed');
      // Files stored while this job waited are judged once they are old enough.
      if (result.nextAt) throw new DeferJob(result.nextAt.getTime() + 1000);
    },
  }),
] as const;
