import type { FastifyInstance } from 'fastify';

/** initialize-payment, verify-payment, the provider webhook and the sandbox checkout. */
export default async function paymentsRoutes(_app: FastifyInstance): Promise<void> {}
