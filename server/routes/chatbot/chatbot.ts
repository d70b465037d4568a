import { hasProfessional } from '../../billing/limits.js';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CHAT_IMAGE_MAX_BYTES, CHAT_IMAGE_TOO_LARGE, MESSAGE_REQUIRED, messageText } from '@parley/shared';
import { history, learningProgress, popularQuestions, rateAnswer, sendToAssistant } from '../../ai/assistant.js';
import { insights } from '../../ai/insights.js';
import { getAiSettings, saveAiSettings } from '../../ai/visitors.js';
import { HttpError, parseOrThrow } from '../../errors.js';
import { authenticate } from '../../plugins/auth.js';
import { readForm } from '../../plugins/uploads.js';
import { authorize } from '../../policies/index.js';

const secured = { security: [{ bearer: [] }] };
const tags = ['chatbot'];

export const FEEDBACK_INVALID = 'Feedback must be helpful, partially_helpful or not_helpful';
export const MESSAGE_ID_INVALID = 'message_id must be a message id';
export const THRESHOLD_INVALID = 'Threshold must be a number from 0.5 to 0.99';

/** The multipart (or JSON) form of POST /chatbot/message: a message and/or image, or a feedback. */
const chatbotForm = z.object({
  message: messageText,
  feedback: z.enum(['helpful', 'partially_helpful', 'not_helpful'], { error: FEEDBACK_INVALID }).optional(),
  message_id: z
    .string({ error: MESSAGE_ID_INVALID })
    .trim()
    .regex(/^[1-9]\d{0,14}$/, { error: MESSAGE_ID_INVALID })
    .transform(Number)
    .optional(),
});

const settingsBody = z
  .object({
    auto_answer_enabled: z.boolean({ error: 'auto_answer_enabled must be true or false' }).optional(),
    threshold: z.number({ error: THRESHOLD_INVALID }).min(0.5, { error: THRESHOLD_INVALID }).max(0.99, { error: THRESHOLD_INVALID }).optional(),
  })
  .strict();

/** The AI assistant's calls (SPEC.md section 7: api/chatbot/*), plus the owner's auto-answer settings. */
const AI_NEEDS_PROFESSIONAL = 'The AI assistant is part of the Professional plan. Upgrade to keep using it.';

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

  app.get('/chatbot/settings', { schema: { tags, ...secured }, onRequest: authenticate }, async (request) => {
    return { message: 'success', data: await getAiSettings(app.db, request.actor.accountId) };
  });

  app.post('/chatbot/settings', { schema: { tags, body: settingsBody, ...secured }, onRequest: authenticate }, async (request) => {
    authorize(request.actor, 'settings.write');
    return { message: 'success', data: await saveAiSettings(app.db, request.actor.accountId, request.body) };
  });
}
