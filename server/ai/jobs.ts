import { z } from 'zod';
import { defineJob } from '../jobs/types.js';
import { learnFromReply } from './visitors.js';

/** Learning from an agent's reply runs as a job: retried on failure, and off the request path. */
export const aiJobs = [
  defineJob({
    name: 'ai.learnFromReply',
    schema: z.object({
      accountId: z.uuid(),
      conversationId: z.number().int().positive(),
      replyId: z.number().int().positive(),
      replyText: z.string().max(10_000),
    }),
    handle: async (p, ctx) => {
      await learnFromReply(ctx.db, p);
    },
  }),
] as const;
