import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { EMAIL_INVALID, MAX_MESSAGE, MESSAGE_TOO_LONG, OFFLINE_EMAIL_REQUIRED, OFFLINE_MESSAGE_REQUIRED, emailField, requiredText } from '@parley/shared';
import { sendMessage } from '../../commands/sendMessage.js';
import { updateVisitor } from '../../commands/updateVisitor.js';
import { HttpError } from '../../errors.js';
import { authenticateVisitor, limitWidgetCalls } from '../../plugins/visitorAuth.js';
import { presentMessage } from '../../presenters/message.js';
import { widgetWrite } from '../../services/widgetWrites.js';
import { messageDtoSchema, okSchema } from '../../presenters/dtoSchemas.js';

const offlineSchema = z.object({
  email: emailField(OFFLINE_EMAIL_REQUIRED, EMAIL_INVALID),
  message: requiredText(OFFLINE_MESSAGE_REQUIRED, MAX_MESSAGE, MESSAGE_TOO_LONG),
});

/**
 * The widget's offline form: the visitor leaves an email and a message when no agent is online,
 * or when the account's plan refused a new chat (the monthly limit): it never counts against
 * the limit nor is refused by it.
 */
export default async function offlineRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  limitWidgetCalls(app);
  app.post(
    '/widget/offline',
    { schema: { response: { 201: okSchema(messageDtoSchema) }, tags: ['widget'], body: offlineSchema, security: [{ bearer: [] }] }, onRequest: authenticateVisitor },
    async (request, reply) => {
      const { email, message } = request.body;
      const { accountId, id: visitorId } = request.visitor;
      const { visitor, result } = await widgetWrite(app, { accountId, visitorId, startsChat: true, chatting: request.visitorChatting }, async () => {
        const visitor = await updateVisitor(app, request.visitor, { email });
        if (!visitor) throw new HttpError(401, 'Unauthenticated'); // deleted between auth and update
        // Its email to the owner is recorded with the message (notifications/messageJobs.ts).
        const result = await sendMessage(app, { visitor, senderType: 'visitor', author: null, text: message, countsTowardLimit: false, offlineForm: true });
        return { visitor, result };
      });
      return reply.status(201).send({ message: 'success', data: presentMessage(result.message, visitor.id, null) });
    },
  );
}
