import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { messages } from '../db/schema.js';
import { defineJob } from '../jobs/types.js';
import { learnFromReply } from './visitors.js';

/**
 * Learning from an agent's reply runs as a job: retried on failure, and off the request path.
 * The job is recorded with the reply itself (notifications/messageJobs.ts) and names it by
 * `messageId`; jobs queued by an earlier release carry `replyId` and the text.
 */
export const aiJobs = [
  defineJob({
    name: 'ai.learnFromReply',
    schema: z
      .object({
        accountId: z.uuid(),
        conversationId: z.number().int().positive(),
        messageId: z.number().int().positive().optional(),
        replyId: z.number().int().positive().optional(),
        replyText: z.string().max(10_000).optional(),
      })
      .refine((p) => p.messageId !== undefined || p.replyId !== undefined, { error: 'messageId is required' }),
    handle: async (p, ctx) => {
      const replyId = (p.messageId ?? p.replyId) as number;
      let replyText = p.replyText;
      if (replyText === undefined) {
        const [row] = await ctx.db
          .select({ text: messages.message })
          .from(messages)
          .where(and(eq(messages.id, replyId), eq(messages.accountId, p.accountId)));
        if (!row) return; // erased since
        replyText = row.text;
      }
      await learnFromReply(ctx.db, { accountId: p.accountId, conversationId: p.conversationId, replyId, replyText });
    },
  }),
] as const;
