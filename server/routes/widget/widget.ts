import type { FastifyInstance } from 'fastify';

export default async function widgetRoutes(_app: FastifyInstance): Promise<void> {}
