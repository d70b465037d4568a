import { and, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { handOver } from '../../ai/visitors.js';
import { aiAnswers, conversations } from '../../db/schema.js';
import { notFound } from '../../errors.js';
import { authenticateVisitor, limitWidgetCalls } from '../../plugins/visitorAuth.js';
import { parseRowId } from '../rowId.js';
import { handoverDtoSchema, okSchema } from '../../presenters/dtoSchemas.js';

const voteSchema = z.object({
  vote: z.enum(['helpful', 'not_helpful'], { message: 'The vote must be helpful or not_helpful' }),
});
const voted = okSchema(z.object({ message_id: z.number(), vote: voteSchema.shape.vote }));
const visitorSecured = { security: [{ bearer: [] }] };
const NOT_AN_ANSWER = 'Answer not found';

/**
 * Issue 17, the assistant's answers in the widget: the visitor's "Was this helpful?" vote on one of
 * their own conversation's answers, and "Talk to a person". A vote is recorded on ai_answers and
 * shown to the owner (auto-answer figures); it never re-weights a pattern or a passage
 * (PRODUCT.md section 11: anonymous visitors' votes never re-weight answers).
 */
export default async function aiAnswerRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  limitWidgetCalls(app);

  app.post(
    '/widget/messages/:id/vote',
    { schema: { tags: ['widget'], params: z.object({ id: z.string() }), body: voteSchema, response: { 200: voted }, ...visitorSecured }, onRequest: authenticateVisitor },
    async (request) => {
      const messageId = parseRowId(request.params.id, NOT_AN_ANSWER);
      await app.limiters.aiVote.consume(request.visitor.id);
      // Only an answer in the visitor's own conversation: another visitor's is simply not found.
      const [own] = await app.db
        .select({ messageId: aiAnswers.messageId })
        .from(aiAnswers)
        .innerJoin(conversations, eq(conversations.id, aiAnswers.conversationId))
        .where(and(eq(aiAnswers.messageId, messageId), eq(conversations.visitorId, request.visitor.id)));
      if (!own) throw notFound(NOT_AN_ANSWER);
      const vote = request.body.vote;
      await app.db.update(aiAnswers).set({ vote, votedAt: new Date() }).where(eq(aiAnswers.messageId, messageId));
      return { message: 'success', data: { message_id: messageId, vote } };
    },
  );

  app.post('/widget/handover', { schema: { tags: ['widget'], response: { 200: okSchema(handoverDtoSchema) }, ...visitorSecured }, onRequest: authenticateVisitor }, async (request) => {
    const [conversation] = await app.db.select().from(conversations).where(eq(conversations.visitorId, request.visitor.id));
    if (!conversation) throw notFound('Conversation not found');
    return { message: 'success', data: await handOver(app, conversation, request.visitor) };
  });
}
