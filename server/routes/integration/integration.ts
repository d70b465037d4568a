import type { FastifyInstance } from 'fastify';

export default async function integrationRoutes(_app: FastifyInstance): Promise<void> {}
