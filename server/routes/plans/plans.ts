import type { FastifyInstance } from 'fastify';

export default async function plansRoutes(_app: FastifyInstance): Promise<void> {}
