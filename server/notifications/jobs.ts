import { z } from 'zod';
import { defineJob } from '../jobs/types.js';
import { notifyChatLimit } from './chatLimit.js';
import { notifyDigest } from './digest.js';
import { notifyOwner } from './notify.js';

const payload = z.object({
  accountId: z.uuid(),
  conversationId: z.number().int().positive(),
  key: z.string().min(1).max(100),
  messageId: z.number().int().positive().optional(),
});

const chatLimitPayload = z.object({
  accountId: z.uuid(),
  month: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/),
});

/** The owner's email notifications (issue 7, and issue 6's chat limit notice), each a job so retries and batching apply. */
export const notificationJobs = [
  defineJob({ name: 'notify.newChat', schema: payload, handle: (p, ctx) => notifyOwner('newChat', p, ctx) }),
  defineJob({ name: 'notify.offlineMessage', schema: payload, handle: (p, ctx) => notifyOwner('offlineMessage', p, ctx) }),
  defineJob({ name: 'notify.missedChat', schema: payload, handle: (p, ctx) => notifyOwner('missedChat', p, ctx) }),
  defineJob({ name: 'notify.chatLimit', schema: chatLimitPayload, handle: (p, ctx) => notifyChatLimit(p, ctx) }),
  defineJob({ name: 'notify.digest', schema: z.object({ accountId: z.uuid() }), handle: (p, ctx) => notifyDigest(p, ctx) }),
] as const;
