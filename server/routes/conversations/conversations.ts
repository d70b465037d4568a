import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CHAT_IMAGE_MAX_BYTES, CHAT_IMAGE_TOO_LARGE, MESSAGE_REQUIRED, consoleMessageSchema, sinceIdQuery } from '@parley/shared';
import { markConversationRead } from '../../commands/markConversationRead.js';
import { sendMessage } from '../../commands/sendMessage.js';
import type { Db } from '../../db/client.js';
import { LanePacer, laneOfAccount } from '../../db/fair.js';
import { HttpError, parseOrThrow } from '../../errors.js';
import { authenticate } from '../../plugins/auth.js';
import { CHAT_DOCUMENTS, readForm } from '../../plugins/uploads.js';
import { authorize } from '../../policies/index.js';
import { findVisibleVisitor } from '../../policies/conversations.js';
import { presentMessage } from '../../presenters/message.js';
import { TOO_MANY_REQUESTS } from '../../services/rateLimit.js';
import { conversationListQuery, listConversations } from './inboxList.js';
import { listMessages } from './messageList.js';
import { searchAccount, searchQuery } from './search.js';
import { conversationListSchema, messageDtoSchema, messageListSchema, okSchema, pageSchema, searchResultDtoSchema } from '../../presenters/dtoSchemas.js';

const secured = { security: [{ bearer: [] }] };
export default async function conversationsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  // One account's list calls are paced on this node (db/fair.ts LanePacer): a console polling in
  // a tight loop gets its pace, the node's CPU and database stay with the other tenants.
  const pace = app.config.consoleListPace ?? { perSecond: 20, burst: 40 };
  const listPace = new LanePacer(pace.burst, pace.perSecond, 5000, (seconds) => Object.assign(new HttpError(429, TOO_MANY_REQUESTS, undefined, seconds), { limit: 'console-list' }));

  // Paged, filtered and counted (issue 16, inboxList.ts); without `limit` the SPEC answer, capped.
  app.get(
    '/conversations',
    { schema: { tags: ['conversations'], querystring: conversationListQuery, response: { 200: conversationListSchema }, ...secured }, onRequest: authenticate },
    async (request) => {
      await listPace.wait(laneOfAccount(request.actor.accountId));
      return listConversations(app.db, request.actor, request.query);
    },
  );

  app.get('/search', { schema: { tags: ['conversations'], querystring: searchQuery, response: { 200: pageSchema(searchResultDtoSchema) }, ...secured }, onRequest: authenticate }, async (request) =>
    searchAccount(app.db, request.actor, request.query),
  );

  app.get(
    '/messages/:visitor_id',
    {
      schema: { tags: ['conversations'], params: z.object({ visitor_id: z.string() }), querystring: sinceIdQuery, response: { 200: messageListSchema }, ...secured },
      onRequest: authenticate,
    },
    async (request) => {
      const { found, data, nextCursor, hasMore, incremental } = await listMessages(app.db, request.query, (tx) =>
        findVisibleVisitor(tx as Db, request.actor, request.params.visitor_id),
      );
      // Opening a conversation (a first load, not a poll) marks it read.
      const { conversation, visitor } = found;
      if (conversation && !incremental && conversation.unreadCount > 0) {
        await markConversationRead(app, conversation, visitor, data.at(-1)?.id ?? 0);
      }
      // next_cursor: the poll cursor (unchanged); has_more: older messages exist (ask again with before=data[0].id).
      return { message: 'success', data, next_cursor: nextCursor, has_more: hasMore };
    },
  );

  app.post('/messages', { schema: { tags: ['conversations'], response: { 200: okSchema(messageDtoSchema), 201: okSchema(messageDtoSchema) }, ...secured }, onRequest: authenticate }, async (request, reply) => {
    const form = await readForm(request, { fileField: 'image', maxBytes: CHAT_IMAGE_MAX_BYTES, tooLargeMessage: CHAT_IMAGE_TOO_LARGE, ...CHAT_DOCUMENTS });
    const input = parseOrThrow(consoleMessageSchema, form.fields);
    if (!input.message && !form.image && !form.file) throw new HttpError(422, MESSAGE_REQUIRED, { message: [MESSAGE_REQUIRED] });
    if (form.image || form.file) authorize(request.actor, 'images.attach');
    const { visitor } = await findVisibleVisitor(app.db, request.actor, input.visitor_id);
    const result = await sendMessage(app, {
      visitor,
      senderType: 'user',
      author: request.actor,
      text: input.message,
      image: form.image,
      file: form.file,
      clientId: input.client_id,
    });
    const data = presentMessage(result.message, visitor.id, result.authorName);
    // 201 for a new message; 200 with the stored one when this client_id was already sent.
    return reply.status(result.created ? 201 : 200).send({ message: 'success', data });
  });
}
