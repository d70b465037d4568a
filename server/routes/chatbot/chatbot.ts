import type { FastifyInstance } from 'fastify';

/** The AI assistant's calls (SPEC.md section 7: api/chatbot/*). */
export default async function chatbotRoutes(_app: FastifyInstance): Promise<void> {}
