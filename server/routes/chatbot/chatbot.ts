import { hasProfessional } from '../../billing/limits.js';
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
import { fromCursor, knowledgeCounts, listKnowledge, listPendingFeedback, PAGE_DEFAULT, PAGE_MAX, reviewFeedback, reviewKnowledge } from '../../ai/review.js';
import { autoAnswerFigures, getAiSettings, saveAiSettings } from '../../ai/visitors.js';
import { HttpError, notFound, parseOrThrow } from '../../errors.js';
import { authenticate } from '../../plugins/auth.js';
import { readForm } from '../../plugins/uploads.js';
import { authorize, can } from '../../policies/index.js';

const secured = { security: [{ bearer: [] }] };
const tags = ['chatbot'];

export const FEEDBACK_INVALID = 'Feedback must be helpful, partially_helpful or not_helpful';
export const MESSAGE_ID_INVALID = 'message_id must be a message id';
export { THRESHOLD_INVALID } from '@parley/shared';
export const LIMIT_INVALID = `limit must be a whole number from 1 to ${PAGE_MAX}`;

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

const pageQuery = z.object({
  limit: z
    .string()
    .regex(/^[1-9]\d{0,2}$/, { error: LIMIT_INVALID })
    .transform(Number)
    .refine((n) => n <= PAGE_MAX, { error: LIMIT_INVALID })
    .optional(),
  cursor: z.string().max(40).optional(),
});
const knowledgeQuery = pageQuery.extend({
  status: z.enum(['pending', 'approved', 'rejected'], { error: 'Status must be pending, approved or rejected' }).default('pending'),
});
const feedbackDecision = z.object({ decision: z.enum(['confirm', 'dismiss'], { error: 'Decision must be confirm or dismiss' }) }).strict();
const idParams = z.object({ id: z.string() });

/** A row id from the path; anything that is not a positive bigint is simply not found. */
function parseId(raw: string, what: string): number {
  if (!/^[1-9]\d{0,14}$/.test(raw)) throw notFound(what);
  return Number(raw);
}

/** The AI assistant's calls (SPEC.md section 7: api/chatbot/*), plus the owner's auto-answer settings and review queue. */

export default async function chatbotRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get('/chatbot/history', { schema: { tags, ...secured }, onRequest: authenticate }, async (request) => {
    const { actor } = request;
    return {
      message: 'success',
      data: await history(app.db, actor),
      suggestions: await popularQuestions(app.db, actor.accountId),
      ai_learning_progress: await learningProgress(app.db, actor),
    };
  });

  app.post('/chatbot/message', { schema: { tags, ...secured }, onRequest: authenticate }, async (request, reply) => {
    // The assistant is part of Professional (and its trial); Starter keeps its history readable.
    if (!(await hasProfessional(app.db, request.actor.accountId, new Date()))) throw new HttpError(403, AI_NEEDS_PROFESSIONAL);
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

  app.get('/chatbot/insights', { schema: { tags, ...secured }, onRequest: authenticate }, async (request) => {
    return { message: 'success', insights: await insights(app.db, request.actor) };
  });

  /** Settings, the figures beside them, and the plan's gate, readable by everyone (Agents read only). */
  app.get('/chatbot/settings', { schema: { tags, ...secured }, onRequest: authenticate }, async (request) => {
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

  app.post('/chatbot/settings', { schema: { tags, body: aiSettingsSchema, ...secured }, onRequest: authenticate }, async (request) => {
    authorize(request.actor, 'ai.manage');
    return { message: 'success', data: await saveAiSettings(app.db, request.actor.accountId, request.body) };
  });

  /** The review queue: learned knowledge by status, newest first (limit + cursor). */
  app.get('/chatbot/knowledge', { schema: { tags, ...secured }, onRequest: authenticate }, async (request) => {
    authorize(request.actor, 'ai.manage');
    const q = parseOrThrow(knowledgeQuery, request.query ?? {});
    const page = await listKnowledge(app.db, request.actor, { status: q.status, limit: q.limit ?? PAGE_DEFAULT, cursor: fromCursor(q.cursor) });
    const counts = await knowledgeCounts(app.db, request.actor.accountId);
    return { message: 'success', ...page, total: counts[q.status], counts };
  });

  /** Approve, edit or reject one piece of knowledge. */
  app.patch('/chatbot/knowledge/:id', { schema: { tags, params: idParams, ...secured }, onRequest: authenticate }, async (request) => {
    authorize(request.actor, 'ai.manage');
    const id = parseId(request.params.id, 'Knowledge not found');
    const change = parseOrThrow(knowledgeChangeSchema, request.body ?? {});
    return { message: 'success', data: await reviewKnowledge(app.db, request.actor, id, change) };
  });

  /** Agents' ratings waiting for an owner/Admin (limit + cursor). */
  app.get('/chatbot/feedback', { schema: { tags, ...secured }, onRequest: authenticate }, async (request) => {
    authorize(request.actor, 'ai.manage');
    const q = parseOrThrow(pageQuery, request.query ?? {});
    const page = await listPendingFeedback(app.db, request.actor, { limit: q.limit ?? PAGE_DEFAULT, cursor: fromCursor(q.cursor) });
    const counts = await knowledgeCounts(app.db, request.actor.accountId);
    return { message: 'success', ...page, total: counts.pending_feedback };
  });

  app.post('/chatbot/feedback/:id', { schema: { tags, params: idParams, ...secured }, onRequest: authenticate }, async (request) => {
    authorize(request.actor, 'ai.manage');
    const id = parseId(request.params.id, 'Feedback not found');
    const { decision } = parseOrThrow(feedbackDecision, request.body ?? {});
    return { message: 'success', data: await reviewFeedback(app.db, request.actor, id, decision) };
  });
}
