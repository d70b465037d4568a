import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { authenticate } from '../../plugins/auth.js';
import { authorize } from '../../policies/index.js';
import { storageUsage } from '../../storage/quota.js';

const secured = { security: [{ bearer: [] }] };

const usageResponse = z.object({
  message: z.string(),
  data: z.object({
    used_bytes: z.number().int().describe('Bytes of every stored upload, thumbnails included'),
    files: z.number().int(),
    quota_bytes: z.number().int().nullable().describe("The plan's storage quota; null when it has none"),
    quota_reached: z.boolean(),
  }),
});

/** The account's stored files against its plan's quota (owner only, like billing). */
export default async function storageRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/storage',
    { schema: { tags: ['billing'], summary: 'Storage used against the plan quota', response: { 200: usageResponse }, ...secured }, onRequest: authenticate },
    async (request) => {
      authorize(request.actor, 'billing.manage');
      return { message: 'success', data: await storageUsage(app.db, request.actor.accountId, new Date()) };
    },
  );
}
