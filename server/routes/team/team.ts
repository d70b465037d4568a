import type { FastifyInstance } from 'fastify';

export default async function teamRoutes(_app: FastifyInstance): Promise<void> {}
