import { and, desc, eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CHAT_IMAGE_MAX_BYTES, CHAT_IMAGE_TOO_LARGE, MESSAGE_REQUIRED, consoleMessageSchema, sinceIdQuery } from '@parley/shared';
import { sendMessage } from '../../commands/sendMessage.js';
import type { Db } from '../../db/client.js';
import { conversations, visitors } from '../../db/schema.js';
import { HttpError, notFound, parseOrThrow } from '../../errors.js';
import { authenticate } from '../../plugins/auth.js';
import { readForm } from '../../plugins/uploads.js';
import { authorize, type Actor } from '../../policies/index.js';
import { visibleConversations } from '../../policies/conversations.js';
import { type ConversationRow, presentConversation } from '../../presenters/conversation.js';
import { conversationMessages, presentMessage } from '../../presenters/message.js';
import type { VisitorRow } from '../../presenters/visitor.js';
import { visibleVisitors } from '../../policies/conversations.js';

const secured = { security: [{ bearer: [] }] };
// Any uuid shape; PostgreSQL throws on a malformed one, so it is checked before querying.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The visitor (and conversation, if any) when it exists in the actor's account and is visible to them; else 404. */
async function findVisibleVisitor(
  db: Db,
  actor: Actor,
  visitorId: string,
): Promise<{ visitor: VisitorRow; conversation: ConversationRow | null }> {
  if (!UUID.test(visitorId)) throw notFound('Visitor not found');
  const [row] = await db
    .select({ visitor: visitors, conversation: conversations })
    .from(visitors)
    .leftJoin(conversations, eq(conversations.visitorId, visitors.id))
    .where(and(eq(visitors.id, visitorId), visibleVisitors(actor)))
    .limit(1);
  if (!row) throw notFound('Visitor not found');
  return row;
}

export default async function conversationsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get('/conversations', { schema: { tags: ['conversations'], ...secured }, onRequest: authenticate }, async (request) => {
    const rows = await app.db
      .select({ conversation: conversations, name: visitors.name, email: visitors.email })
      .from(conversations)
      .innerJoin(visitors, eq(visitors.id, conversations.visitorId))
      .where(visibleConversations(request.actor))
      .orderBy(sql`${conversations.lastMessageAt} desc nulls last`, desc(conversations.id));
    return { message: 'success', data: rows.map((r) => presentConversation(r.conversation, r)) };
  });

  app.get(
    '/messages/:visitor_id',
    {
      schema: { tags: ['conversations'], params: z.object({ visitor_id: z.string() }), querystring: sinceIdQuery, ...secured },
      onRequest: authenticate,
    },
    async (request) => {
      const { conversation } = await findVisibleVisitor(app.db, request.actor, request.params.visitor_id);
      if (!conversation) return { message: 'success', data: [] };
      const { since_id: sinceId } = request.query;
      // Opening a conversation (a first load, not a poll) marks it read.
      if (sinceId === undefined && conversation.unreadCount > 0) {
        await app.db.update(conversations).set({ unreadCount: 0 }).where(eq(conversations.id, conversation.id));
      }
      return { message: 'success', data: await conversationMessages(app.db, conversation, sinceId) };
    },
  );

  app.post('/messages', { schema: { tags: ['conversations'], ...secured }, onRequest: authenticate }, async (request, reply) => {
    const form = await readForm(request, { fileField: 'image', maxBytes: CHAT_IMAGE_MAX_BYTES, tooLargeMessage: CHAT_IMAGE_TOO_LARGE });
    const input = parseOrThrow(consoleMessageSchema, form.fields);
    if (!input.message && !form.image) throw new HttpError(422, MESSAGE_REQUIRED, { message: [MESSAGE_REQUIRED] });
    if (form.image) authorize(request.actor, 'images.attach');
    const { visitor } = await findVisibleVisitor(app.db, request.actor, input.visitor_id);
    const result = await sendMessage(app, {
      visitor,
      senderType: 'user',
      authorId: request.actor.id,
      text: input.message,
      image: form.image,
      clientId: input.client_id,
    });
    const data = presentMessage(result.message, visitor.id, result.authorName);
    // 201 for a new message; 200 with the stored one when this client_id was already sent.
    return reply.status(result.created ? 201 : 200).send({ message: 'success', data });
  });
}
