import type { FastifyInstance } from 'fastify';
import { autoAnswer } from './visitors.js';

/**
 * Subscribes the AI assistant to domain events: an agent's reply to a visitor teaches it
 * (the ai.learnFromReply job), and a visitor's message may be
 * answered by it when the owner enabled that and nobody is online.
 */
export async function registerAi(app: FastifyInstance): Promise<void> {
  app.events.on('message.stored', async (event) => {
    const { message } = event;
    if (message.senderType === 'user') {
      await app.jobs.enqueue('ai.learnFromReply', {
        accountId: event.accountId,
        conversationId: event.conversation.id,
        replyId: message.id,
        replyText: message.message,
      });
    } else if (message.senderType === 'visitor') {
      await autoAnswer(app, event);
    }
  }, { background: true });
}
