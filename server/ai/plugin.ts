import type { FastifyInstance } from 'fastify';

/** Subscribes the AI assistant to domain events (learning from agent replies, visitor auto-answer). */
export async function registerAi(_app: FastifyInstance): Promise<void> {}
