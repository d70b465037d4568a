import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { noteSchema } from '@parley/shared';
import { addNote } from '../../commands/addNote.js';
import { notFound } from '../../errors.js';
import { authenticate } from '../../plugins/auth.js';
import { findVisibleVisitor } from '../../policies/conversations.js';
import { presentMessage } from '../../presenters/message.js';
import { messageDtoSchema, okSchema } from '../../presenters/dtoSchemas.js';

const secured = { security: [{ bearer: [] }] };

/**
 * Private notes (issue 16): anyone who may see a conversation writes one; it shows in the
 * console's thread (GET /messages/:visitor_id, message.created to the team's consoles) and
 * never reaches the visitor (policies/messages.ts).
 */
export default async function notesRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.post(
    '/conversations/:visitorId/notes',
    {
      schema: { response: { 200: okSchema(messageDtoSchema), 201: okSchema(messageDtoSchema) }, tags: ['conversations'], summary: 'Add a private note (never shown to the visitor)', params: z.object({ visitorId: z.string() }), body: noteSchema, ...secured },
      onRequest: authenticate,
    },
    async (request, reply) => {
      const { actor } = request;
      const { visitor, conversation } = await findVisibleVisitor(app.db, actor, request.params.visitorId);
      if (!conversation) throw notFound('Conversation not found');
      const { message, created } = await addNote(app, {
        visitor,
        conversation,
        author: { id: actor.id, name: actor.name },
        text: request.body.message,
        clientId: request.body.client_id,
      });
      return reply.status(created ? 201 : 200).send({ message: 'success', data: presentMessage(message, visitor.id, actor.name) });
    },
  );
}
