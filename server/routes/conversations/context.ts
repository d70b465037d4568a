import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { and, desc, eq, gte } from 'drizzle-orm';
import { z } from 'zod';
import { type VisitorContextDto, updateVisitorSchema } from '@parley/shared';
import { updateVisitor } from '../../commands/updateVisitor.js';
import type { Db } from '../../db/client.js';
import { conversationStretches, messages, users, visitorPages } from '../../db/schema.js';
import { notFound, validationError } from '../../errors.js';
import { authenticate } from '../../plugins/auth.js';
import { findVisibleVisitor } from '../../policies/conversations.js';
import { presentMessage } from '../../presenters/message.js';
import { type VisitorRow, presentVisitor } from '../../presenters/visitor.js';
import type { ConversationRow } from '../../presenters/conversation.js';
import { okSchema, visitorContextDtoSchema, visitorDtoSchema } from '../../presenters/dtoSchemas.js';

const secured = { security: [{ bearer: [] }] };
const params = z.object({ visitorId: z.string().max(64) });
export const CONTEXT_PAGES = 50;
export const CONTEXT_STRETCHES = 50;
export const CONTEXT_NOTES = 20;
export const PAGE_URL_NOT_EDITABLE = "The current page is reported by the visitor's browser";

/**
 * The side panel's data beyond the visitor row: three indexed reads, each bounded, each keyed
 * by the visitor or conversation that findVisibleVisitor already scoped (account + audience).
 */
export async function visitorContext(db: Db, visitor: VisitorRow, conversation: ConversationRow | null): Promise<VisitorContextDto> {
  const pages = await db
    .select({ url: visitorPages.url, at: visitorPages.createdAt })
    .from(visitorPages)
    .where(and(eq(visitorPages.visitorId, visitor.id), gte(visitorPages.createdAt, visitor.visitStartedAt)))
    .orderBy(desc(visitorPages.id))
    .limit(CONTEXT_PAGES);
  const stretches = conversation
    ? await db
        .select()
        .from(conversationStretches)
        .where(eq(conversationStretches.conversationId, conversation.id))
        .orderBy(desc(conversationStretches.resolvedAt))
        .limit(CONTEXT_STRETCHES)
    : [];
  const notes = conversation
    ? await db
        .select({ message: messages, authorName: users.name })
        .from(messages)
        .leftJoin(users, eq(users.id, messages.authorId))
        .where(and(eq(messages.conversationId, conversation.id), eq(messages.senderType, 'note')))
        .orderBy(desc(messages.id))
        .limit(CONTEXT_NOTES)
    : [];
  return {
    visitor: presentVisitor(visitor),
    time_zone: visitor.timeZone,
    visit_count: visitor.visitCount,
    visit_started_at: visitor.visitStartedAt.toISOString(),
    pages: pages.map((p) => ({ url: p.url, at: p.at.toISOString() })),
    past_conversations: stretches.map((s) => ({
      opened_at: s.openedAt.toISOString(),
      resolved_at: s.resolvedAt.toISOString(),
      message_count: s.messageCount,
      first_message: s.firstMessage,
    })),
    notes: notes.map((n) => presentMessage(n.message, visitor.id, n.authorName)),
  };
}

/**
 * Issue 16, "Visitor context beside the chat": the message center's side panel. Anyone who may
 * see the visitor's conversation (an Agent: theirs or unassigned); 404 otherwise, other accounts too.
 */
export default async function contextRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/conversations/:visitorId/context',
    { schema: { response: { 200: okSchema(visitorContextDtoSchema) }, tags: ['conversations'], summary: "The visitor side panel's data", params, ...secured }, onRequest: authenticate },
    async (request) => {
      const { visitor, conversation } = await findVisibleVisitor(app.db, request.actor, request.params.visitorId);
      return { message: 'success', data: await visitorContext(app.db, visitor, conversation) };
    },
  );

  // The team corrects the visitor's name or email with the widget's own rules (updateVisitorSchema
  // and the updateVisitor command); the page stays the browser's to report.
  app.patch(
    '/conversations/:visitorId/visitor',
    {
      schema: { response: { 200: okSchema(visitorDtoSchema) }, tags: ['conversations'], summary: "Edit the visitor's name or email", params, body: updateVisitorSchema, ...secured },
      onRequest: authenticate,
    },
    async (request) => {
      const { name, email, page_url: pageUrl } = request.body;
      if (pageUrl !== undefined) throw validationError({ page_url: [PAGE_URL_NOT_EDITABLE] });
      const found = await findVisibleVisitor(app.db, request.actor, request.params.visitorId);
      const visitor = await updateVisitor(app, found.visitor, { name, email }, { seen: false });
      if (!visitor) throw notFound('Visitor not found');
      return { message: 'success', data: presentVisitor(visitor) };
    },
  );
}
