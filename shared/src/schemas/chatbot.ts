import { z } from 'zod';

/** The AI assistant's owner/Admin calls: auto-answer settings and the knowledge review queue. */

export const AI_NEEDS_PROFESSIONAL = 'The AI assistant is part of the Professional plan. Upgrade to keep using it.';
export const THRESHOLD_INVALID = 'Threshold must be a number from 0.5 to 0.99';
export const KNOWLEDGE_QUESTION_REQUIRED = 'The question is required';
export const KNOWLEDGE_ANSWER_REQUIRED = 'The answer is required';
export const KNOWLEDGE_QUESTION_MAX = 2000;
export const KNOWLEDGE_ANSWER_MAX = 5000;

export const aiSettingsSchema = z
  .object({
    auto_answer_enabled: z.boolean({ error: 'auto_answer_enabled must be true or false' }).optional(),
    threshold: z.number({ error: THRESHOLD_INVALID }).min(0.5, { error: THRESHOLD_INVALID }).max(0.99, { error: THRESHOLD_INVALID }).optional(),
    auto_approve: z.boolean({ error: 'auto_approve must be true or false' }).optional(),
  })
  .strict();
export type AiSettingsInput = z.output<typeof aiSettingsSchema>;

const knowledgeText = (required: string, max: number) =>
  z
    .string({ error: required })
    .trim()
    .min(1, { error: required })
    .max(max, { error: `At most ${max} characters` });

/** Approve, edit or reject learned knowledge (PATCH /api/chatbot/knowledge/{id}). */
export const knowledgeChangeSchema = z
  .object({
    question: knowledgeText(KNOWLEDGE_QUESTION_REQUIRED, KNOWLEDGE_QUESTION_MAX).optional(),
    answer: knowledgeText(KNOWLEDGE_ANSWER_REQUIRED, KNOWLEDGE_ANSWER_MAX).optional(),
    status: z.enum(['approved', 'pending', 'rejected'], { error: 'Status must be approved, pending or rejected' }).optional(),
  })
  .strict();
export type KnowledgeChangeInput = z.output<typeof knowledgeChangeSchema>;
