import type { FastifyInstance } from 'fastify';

export default async function visitorsRoutes(_app: FastifyInstance): Promise<void> {}
