import { z } from 'zod';
import { defineJob } from '../jobs/types.js';
import { notifyOwner } from './notify.js';

const payload = z.object({
  accountId: z.uuid(),
  conversationId: z.number().int().positive(),
  key: z.string().min(1).max(100),
  messageId: z.number().int().positive().optional(),
});

/** The owner's three email notifications (issue 7), each a job so retries and batching apply. */
export const notificationJobs = [
  defineJob({ name: 'notify.newChat', schema: payload, handle: (p, ctx) => notifyOwner('newChat', p, ctx) }),
  defineJob({ name: 'notify.offlineMessage', schema: payload, handle: (p, ctx) => notifyOwner('offlineMessage', p, ctx) }),
  defineJob({ name: 'notify.missedChat', schema: payload, handle: (p, ctx) => notifyOwner('missedChat', p, ctx) }),
] as const;
