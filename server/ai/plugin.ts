import type { FastifyInstance } from 'fastify';
import { autoAnswer } from './visitors.js';

/**
 * Subscribes the AI assistant to domain events: a visitor's message may be answered by it when
 * the owner enabled that and nobody is online. (An agent's reply teaches it through the
 * ai.learnFromReply job, recorded with the reply by sendMessage.)
 */
export async function registerAi(app: FastifyInstance): Promise<void> {
  app.events.on('message.stored', async (event) => {
    if (event.message.senderType === 'visitor') await autoAnswer(app, event);
  }, { background: true });
}
