import { and, asc, count, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { MAX_CANNED_REPLIES, SHORTCUT_TAKEN, TOO_MANY_CANNED_REPLIES, cannedReplyPatchSchema, cannedReplySchema } from '@parley/shared';
import { cannedReplies } from '../../db/schema.js';
import { isUniqueViolation, notFound, validationError } from '../../errors.js';
import { authenticate } from '../../plugins/auth.js';
import { type Actor, authorize } from '../../policies/index.js';
import { presentCannedReply } from '../../presenters/inbox.js';
import { parseRowId } from '../rowId.js';
import { successSchema } from '../../presenters/dtoSchemas.js';

const secured = { security: [{ bearer: [] }] };
const tags = ['inbox'];
const idParams = z.object({ id: z.string() });
const NOT_FOUND = 'Canned reply not found';

const cannedReplyDto = z.object({ id: z.number(), title: z.string(), text: z.string(), shortcut: z.string() });
const one = z.object({ message: z.literal('success'), data: cannedReplyDto });

const taken = () => validationError({ shortcut: [SHORTCUT_TAKEN] });

/**
 * Canned replies (issue 16): everyone in the account reads them (the composer's `/` list);
 * owner and Admin create, edit and delete them ('inbox.manage'). Scoped to the caller's account;
 * another account's id is 404.
 */
export default async function cannedRepliesRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const manage = async (request: { actor: Actor }) => authorize(request.actor, 'inbox.manage');
  const inAccount = (actor: Actor, id: number) => and(eq(cannedReplies.id, id), eq(cannedReplies.accountId, actor.accountId));

  app.get(
    '/canned-replies',
    { schema: { tags, summary: 'The account’s canned replies, by shortcut', response: { 200: z.object({ message: z.literal('success'), data: z.array(cannedReplyDto) }) }, ...secured }, onRequest: authenticate },
    async (request) => {
      const rows = await app.db.select().from(cannedReplies).where(eq(cannedReplies.accountId, request.actor.accountId)).orderBy(asc(cannedReplies.shortcut));
      return { message: 'success' as const, data: rows.map(presentCannedReply) };
    },
  );

  app.post(
    '/canned-replies',
    { schema: { tags, summary: 'Create a canned reply (owner/Admin)', body: cannedReplySchema, response: { 201: one }, ...secured }, onRequest: [authenticate, manage] },
    async (request, reply) => {
      const { accountId, id: userId } = request.actor;
      const [{ n } = { n: 0 }] = await app.db.select({ n: count() }).from(cannedReplies).where(eq(cannedReplies.accountId, accountId));
      if (n >= MAX_CANNED_REPLIES) throw validationError({ _: [TOO_MANY_CANNED_REPLIES] });
      try {
        const [row] = await app.db
          .insert(cannedReplies)
          .values({ accountId, createdBy: userId, ...request.body })
          .returning();
        return reply.status(201).send({ message: 'success' as const, data: presentCannedReply(row!) });
      } catch (e) {
        if (isUniqueViolation(e)) throw taken();
        throw e;
      }
    },
  );

  app.patch(
    '/canned-replies/:id',
    { schema: { tags, summary: 'Change a canned reply (owner/Admin)', params: idParams, body: cannedReplyPatchSchema, response: { 200: one }, ...secured }, onRequest: [authenticate, manage] },
    async (request) => {
      const id = parseRowId(request.params.id, NOT_FOUND);
      try {
        const [row] = await app.db
          .update(cannedReplies)
          .set({ ...request.body, updatedAt: new Date() })
          .where(inAccount(request.actor, id))
          .returning();
        if (!row) throw notFound(NOT_FOUND);
        return { message: 'success' as const, data: presentCannedReply(row) };
      } catch (e) {
        if (isUniqueViolation(e)) throw taken();
        throw e;
      }
    },
  );

  app.delete(
    '/canned-replies/:id',
    { schema: { response: { 200: successSchema }, tags, summary: 'Delete a canned reply (owner/Admin)', params: idParams, ...secured }, onRequest: [authenticate, manage] },
    async (request) => {
      const id = parseRowId(request.params.id, NOT_FOUND);
      const gone = await app.db.delete(cannedReplies).where(inAccount(request.actor, id)).returning({ id: cannedReplies.id });
      if (gone.length === 0) throw notFound(NOT_FOUND);
      return { message: 'success' };
    },
  );
}
