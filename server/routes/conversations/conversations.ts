import type { FastifyInstance } from 'fastify';

export default async function conversationsRoutes(_app: FastifyInstance): Promise<void> {}
