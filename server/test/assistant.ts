import type { FastifyInstance } from 'fastify';
import { callMultipart } from './multipart.js';

/** The AI Chatbot screen's calls, as the console sends them (multipart POST /api/chatbot/message). */
export const askAssistant = (app: FastifyInstance, token: string, message: string) =>
  callMultipart(app, 'POST', '/api/chatbot/message', { token, fields: { message } });

/** A rating of the assistant's answer `messageId` ('helpful', 'partially_helpful' or 'not_helpful'). */
export const rateAssistant = (app: FastifyInstance, token: string, messageId: number, feedback: string) =>
  callMultipart(app, 'POST', '/api/chatbot/message', { token, fields: { feedback, message_id: String(messageId) } });
