import { assertAssistantPlan, hasProfessional } from '../../billing/limits.js';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AI_NEEDS_PROFESSIONAL,
  aiSettingsSchema,
  CHAT_IMAGE_MAX_BYTES,
  CHAT_IMAGE_TOO_LARGE,
  knowledgeChangeSchema,
  MESSAGE_REQUIRED,
  messageText,
} from '@parley/shared';
import { history, learningProgress, popularQuestions, rateAnswer, sendToAssistant } from '../../ai/assistant.js';
import { insights } from '../../ai/insights.js';
import { knowledgeCounts, listKnowledge, listPendingFeedback, reviewFeedback, reviewKnowledge } from '../../ai/review.js';
import { idAfter, PAGE_DEFAULT, pageQuery } from '../../presenters/page.js';
import { autoAnswerFigures, getAiSettings, saveAiSettings } from '../../ai/visitors.js';
import { HttpError, notFound, parseOrThrow } from '../../errors.js';
import { authenticate } from '../../plugins/auth.js';
import { readForm } from '../../plugins/uploads.js';
import {
  aiSettingsDtoSchema,
  chatbotChatSchema,
  chatbotFeedbackAnswerSchema,
  chatbotInsightsAnswerSchema,
  chatbotSettingsAnswerSchema,
  feedbackReviewDtoSchema,
  knowledgeCountsDtoSchema,
  knowledgeDtoSchema,
  okSchema,
  pageSchema,
  pendingFeedbackDtoSchema,
} from '../../presenters/dtoSchemas.js';
import type { Actor } from '../../policies/actor.js';
import { authorize, can } from '../../policies/index.js';
import { audit } from '../../services/audit.js';

const secured = { security: [{ bearer: [] }] };
const tags = ['chatbot'];

export const FEEDBACK_INVALID = 'Feedback must be helpful, partially_helpful or not_helpful';
export const MESSAGE_ID_INVALID = 'message_id must be a message id';
export { THRESHOLD_INVALID } from '@parley/shared';

/** The multipart (or JSON) form of POST /chatbot/message: a message and/or image, or a feedback. */
export const chatbotForm = z.object({
  message: messageText,
  feedback: z.enum(['helpful', 'partially_helpful', 'not_helpful'], { error: FEEDBACK_INVALID }).optional(),
  message_id: z
    .string({ error: MESSAGE_ID_INVALID })
    .trim()
    .regex(/^[1-9]\d{0,14}$/, { error: MESSAGE_ID_INVALID })
    .transform(Number)
    .optional(),
});

const knowledgeQuery = pageQuery.extend({
  status: z.enum(['pending', 'approved', 'rejected'], { error: 'Status must be pending, approved or rejected' }).default('pending'),
});
const feedbackDecision = z.object({ decision: z.enum(['confirm', 'dismiss'], { error: 'Decision must be confirm or dismiss' }) }).strict();
const idParams = z.object({ id: z.string() });

/** Owner/Admin only, checked before the body is (an Agent is refused whatever it sends). */
const aiManage = async (request: { actor: Actor }) => authorize(request.actor, 'ai.manage');

/** A row id from the path; anything that is not a positive bigint is simply not found. */
function parseId(raw: string, what: string): number {
  if (!/^[1-9]\d{0,14}$/.test(raw)) throw notFound(what);
  return Number(raw);
}

/** The AI assistant's calls (SPEC.md section 7: api/chatbot/*), plus the owner's auto-answer settings and review queue. */

export default async function chatbotRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get('/chatbot/history', { schema: { tags, response: { 200: chatbotChatSchema }, ...secured }, onRequest: authenticate }, async (request) => {
    const { actor } = request;
    return {
      message: 'success',
      data: await history(app.db, actor),
      suggestions: await popularQuestions(app.db, actor.accountId),
      ai_learning_progress: await learningProgress(app.db, actor),
    };
  });

  app.post('/chatbot/message', { schema: { tags, response: { 200: chatbotFeedbackAnswerSchema, 201: chatbotChatSchema }, ...secured }, onRequest: authenticate }, async (request, reply) => {
    // The assistant is part of Professional (and its trial); Starter keeps its history readable.
    await assertAssistantPlan(app.db, request.actor.accountId);
    const form = await readForm(request, { fileField: 'image', maxBytes: CHAT_IMAGE_MAX_BYTES, tooLargeMessage: CHAT_IMAGE_TOO_LARGE });
    const input = parseOrThrow(chatbotForm, form.fields);
    const { actor } = request;
    if (input.feedback) {
      const data = await rateAnswer(app.db, actor, input.feedback, input.message_id);
      return { message: 'success', data, ai_learning_progress: await learningProgress(app.db, actor) };
    }
    if (!input.message && !form.image) throw new HttpError(422, MESSAGE_REQUIRED, { message: [MESSAGE_REQUIRED] });
    if (form.image) authorize(actor, 'images.attach');
    const result = await sendToAssistant(app, actor, input.message, form.image);
    return reply.status(201).send({
      message: 'success',
      data: result.data,
      suggestions: result.suggestions,
      ai_learning_progress: await learningProgress(app.db, actor),
    });
  });

  app.get('/chatbot/insights', { schema: { tags, response: { 200: chatbotInsightsAnswerSchema }, ...secured }, onRequest: authenticate }, async (request) => {
    return { message: 'success', insights: await insights(app.db, request.actor) };
  });

  /** Settings, the figures beside them, and the plan's gate, readable by everyone (Agents read only). */
  app.get('/chatbot/settings', { schema: { tags, response: { 200: chatbotSettingsAnswerSchema }, ...secured }, onRequest: authenticate }, async (request) => {
    const { actor } = request;
    const available = await hasProfessional(app.db, actor.accountId, new Date());
    const manage = can(actor, 'ai.manage');
    return {
      message: 'success',
      data: await getAiSettings(app.db, actor.accountId),
      figures: await autoAnswerFigures(app.db, actor.accountId),
      plan: { ai_available: available, message: available ? null : AI_NEEDS_PROFESSIONAL },
      can_manage: manage,
      ...(manage ? { review: await knowledgeCounts(app.db, actor.accountId) } : {}),
    };
  });

  app.post('/chatbot/settings', { schema: { tags, body: aiSettingsSchema, response: { 200: okSchema(aiSettingsDtoSchema) }, ...secured }, onRequest: authenticate }, async (request) => {
    authorize(request.actor, 'ai.manage');
    const data = await saveAiSettings(app.db, request.actor.accountId, request.body);
    await audit(request, 'settings.updated', 'ai_settings', { fields: Object.keys(request.body) });
    return { message: 'success', data };
  });

  /** The review queue: learned knowledge by status, newest first (limit + cursor). */
  app.get('/chatbot/knowledge', { schema: { tags, querystring: knowledgeQuery, response: { 200: pageSchema(knowledgeDtoSchema).extend({ total: z.number(), counts: knowledgeCountsDtoSchema }) }, ...secured }, onRequest: [authenticate, aiManage] }, async (request) => {
    const q = request.query;
    const page = await listKnowledge(app.db, request.actor, { status: q.status, limit: q.limit ?? PAGE_DEFAULT, cursor: idAfter(q.cursor) });
    const counts = await knowledgeCounts(app.db, request.actor.accountId);
    return { message: 'success', ...page, total: counts[q.status], counts };
  });

  /** Approve, edit or reject one piece of knowledge. */
  app.patch('/chatbot/knowledge/:id', { schema: { tags, params: idParams, body: knowledgeChangeSchema, response: { 200: okSchema(knowledgeDtoSchema) }, ...secured }, onRequest: [authenticate, aiManage] }, async (request) => {
    const id = parseId(request.params.id, 'Knowledge not found');
    return { message: 'success', data: await reviewKnowledge(app.db, request.actor, id, request.body) };
  });

  /** Agents' ratings waiting for an owner/Admin (limit + cursor). */
  app.get('/chatbot/feedback', { schema: { tags, querystring: pageQuery, response: { 200: pageSchema(pendingFeedbackDtoSchema).extend({ total: z.number() }) }, ...secured }, onRequest: [authenticate, aiManage] }, async (request) => {
    const q = request.query;
    const page = await listPendingFeedback(app.db, request.actor, { limit: q.limit ?? PAGE_DEFAULT, cursor: idAfter(q.cursor) });
    const counts = await knowledgeCounts(app.db, request.actor.accountId);
    return { message: 'success', ...page, total: counts.pending_feedback };
  });

  app.post('/chatbot/feedback/:id', { schema: { tags, params: idParams, body: feedbackDecision, response: { 200: okSchema(feedbackReviewDtoSchema) }, ...secured }, onRequest: [authenticate, aiManage] }, async (request) => {
    const id = parseId(request.params.id, 'Feedback not found');
    return { message: 'success', data: await reviewFeedback(app.db, request.actor, id, request.body.decision) };
  });
}
