import { and, count, desc, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { API_KEY_PREFIX, API_KEY_SCOPES, MAX_API_KEYS, TOO_MANY_API_KEYS, apiKeySchema } from '@parley/shared';
import { apiKeys, users } from '../../db/schema.js';
import { notFound, validationError } from '../../errors.js';
import { authenticate } from '../../plugins/auth.js';
import { type Actor, authorize } from '../../policies/index.js';
import { presentApiKey } from '../../presenters/integrations.js';
import { audit } from '../../services/audit.js';
import { hashToken, newToken } from '../../services/secrets.js';

const secured = { security: [{ bearer: [] }] };
const tags = ['integrations'];
const NOT_FOUND = 'API key not found';

const keyDto = z.object({
  id: z.string(),
  name: z.string(),
  scopes: z.array(z.enum(API_KEY_SCOPES)),
  prefix: z.string(),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
  user: z.object({ id: z.number(), name: z.string() }),
});

/**
 * API keys (issue 14): owner and Admin create, list and revoke the account's keys. The key is
 * answered once, at creation; only its sha256 is stored. A key acts as its creator narrowed to
 * its scopes (plugins/auth.ts, scopes.ts) and is deleted with that user.
 */
export default async function apiKeysRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const manage = async (request: { actor: Actor }) => authorize(request.actor, 'integrations.manage');

  app.get(
    '/api-keys',
    {
      schema: { tags, summary: 'The account’s API keys, newest first (owner/Admin)', response: { 200: z.object({ message: z.literal('success'), data: z.array(keyDto) }) }, ...secured },
      onRequest: [authenticate, manage],
    },
    async (request) => {
      const rows = await app.db
        .select({ key: apiKeys, userName: users.name })
        .from(apiKeys)
        .innerJoin(users, eq(users.id, apiKeys.userId))
        .where(eq(apiKeys.accountId, request.actor.accountId))
        .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
      return { message: 'success' as const, data: rows.map((r) => presentApiKey(r.key, { id: r.key.userId, name: r.userName })) };
    },
  );

  app.post(
    '/api-keys',
    {
      schema: {
        tags,
        summary: 'Create an API key (owner/Admin); `key` is shown only in this answer',
        body: apiKeySchema,
        response: { 201: z.object({ message: z.literal('success'), data: keyDto.extend({ key: z.string() }) }) },
        ...secured,
      },
      onRequest: [authenticate, manage],
    },
    async (request, reply) => {
      const { actor } = request;
      const [{ n } = { n: 0 }] = await app.db.select({ n: count() }).from(apiKeys).where(eq(apiKeys.accountId, actor.accountId));
      if (n >= MAX_API_KEYS) throw validationError({ _: [TOO_MANY_API_KEYS] });
      const key = `${API_KEY_PREFIX}${newToken()}`;
      const row = await app.db.transaction(async (tx) => {
        const [inserted] = await tx
          .insert(apiKeys)
          .values({
            accountId: actor.accountId,
            userId: actor.id,
            name: request.body.name,
            scopes: request.body.scopes,
            keyHash: hashToken(key),
            prefix: key.slice(0, API_KEY_PREFIX.length + 6),
          })
          .returning();
        if (!inserted) throw new Error('api key insert returned nothing');
        await audit(request, 'api_key.created', `api_key:${inserted.id}`, { name: inserted.name, scopes: inserted.scopes }, tx);
        return inserted;
      });
      reply.code(201);
      return { message: 'success' as const, data: { ...presentApiKey(row, { id: actor.id, name: actor.name }), key } };
    },
  );

  app.delete(
    '/api-keys/:id',
    {
      schema: {
        tags,
        summary: 'Revoke an API key at once (owner/Admin)',
        params: z.object({ id: z.string() }),
        response: { 200: z.object({ message: z.literal('success') }) },
        ...secured,
      },
      onRequest: [authenticate, manage],
    },
    async (request) => {
      const id = request.params.id;
      if (!z.uuid().safeParse(id).success) throw notFound(NOT_FOUND);
      await app.db.transaction(async (tx) => {
        const [deleted] = await tx
          .delete(apiKeys)
          .where(and(eq(apiKeys.id, id), eq(apiKeys.accountId, request.actor.accountId)))
          .returning({ id: apiKeys.id, name: apiKeys.name });
        if (!deleted) throw notFound(NOT_FOUND);
        await audit(request, 'api_key.revoked', `api_key:${deleted.id}`, { name: deleted.name }, tx);
      });
      return { message: 'success' as const };
    },
  );
}
