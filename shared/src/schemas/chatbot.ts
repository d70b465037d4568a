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

/** Issue 17: the assistant's knowledge sources (POST /api/chatbot/sources, .../upload). */
export const SOURCE_URL_REQUIRED = 'Enter the address of your website';
export const SOURCE_URL_INVALID = 'Enter a website address starting with http:// or https://';
export const SOURCE_FILE_REQUIRED = 'Choose a file to upload';
export const SOURCE_FILE_TYPES = 'Upload a PDF, Word (.docx), Markdown (.md) or text (.txt) document, or an FAQ file (.csv of question,answer)';
export const SOURCE_FILE_MAX_BYTES = 10 * 1024 * 1024;
export const SOURCE_FILE_TOO_LARGE = 'The file is larger than 10 MB';

/** A website address: http(s), or a bare host name (https:// is assumed). */
export const aiSourceUrlSchema = z
  .object({
    url: z
      .string({ error: SOURCE_URL_REQUIRED })
      .trim()
      .min(1, { error: SOURCE_URL_REQUIRED })
      .max(2000, { error: 'At most 2000 characters' })
      .transform((s) => (/^[a-z][a-z0-9+.-]*:/i.test(s) ? s : `https://${s}`))
      .refine(
        (s) => {
          try {
            const u = new URL(s);
            return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname.length > 0;
          } catch {
            return false;
          }
        },
        { error: SOURCE_URL_INVALID },
      ),
  })
  .strict();
export type AiSourceUrlInput = z.output<typeof aiSourceUrlSchema>;
