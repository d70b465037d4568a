import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { MAX_EMAIL } from '@parley/shared';
import { sendMessage } from '../../commands/sendMessage.js';
import { visitors } from '../../db/schema.js';
import { HttpError } from '../../errors.js';
import { authenticateVisitor } from '../../plugins/visitorAuth.js';
import { presentMessage } from '../../presenters/message.js';

export const OFFLINE_MESSAGE_MAX = 5000;

const offlineSchema = z.object({
  email: z
    .string({ error: 'The email field is required' })
    .trim()
    .min(1, { error: 'The email field is required', abort: true })
    .max(MAX_EMAIL, { error: 'Please enter a valid email address', abort: true })
    .refine((v) => z.regexes.email.test(v), { error: 'Please enter a valid email address' }),
  message: z
    .string({ error: 'The message field is required' })
    .trim()
    .min(1, { error: 'The message field is required', abort: true })
    .max(OFFLINE_MESSAGE_MAX, { error: `Message must be at most ${OFFLINE_MESSAGE_MAX} characters` }),
});

/**
 * The widget's offline form: the visitor leaves an email and a message when no agent is online,
 * or when the account's plan refused a new chat (the monthly limit): it never counts against
 * the limit nor is refused by it.
 */
export default async function offlineRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.post(
    '/widget/offline',
    { schema: { tags: ['widget'], body: offlineSchema, security: [{ bearer: [] }] }, onRequest: authenticateVisitor },
    async (request, reply) => {
      const { email, message } = request.body;
      const [visitor] = await app.db
        .update(visitors)
        .set({ email, lastSeenAt: new Date() })
        .where(eq(visitors.id, request.visitor.id))
        .returning();
      if (!visitor) throw new HttpError(401, 'Unauthenticated'); // deleted between auth and update
      await app.events.emit('visitor.updated', { accountId: visitor.accountId, visitor, pageChanged: false });
      const result = await sendMessage(app, { visitor, senderType: 'visitor', authorId: null, text: message, countsTowardLimit: false });
      await app.events.emit('offline.message', { accountId: visitor.accountId, visitor: result.visitor, email, message });
      return reply.status(201).send({ message: 'success', data: presentMessage(result.message, visitor.id, null) });
    },
  );
}
