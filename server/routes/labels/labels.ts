import { and, asc, count, eq, inArray, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { LABEL_NAME_TAKEN, LABEL_UNKNOWN, MAX_LABELS, TOO_MANY_LABELS, conversationLabelsSchema, labelPatchSchema, labelSchema } from '@parley/shared';
import type { Db } from '../../db/client.js';
import { lockConversationsInOrder } from '../../db/conversationLocks.js';
import { conversationLabels, conversations, labels } from '../../db/schema.js';
import { isForeignKeyViolation, isUniqueViolation, notFound, validationError } from '../../errors.js';
import { authenticate } from '../../plugins/auth.js';
import { findVisibleVisitor } from '../../policies/conversations.js';
import { type Actor, authorize } from '../../policies/index.js';
import { presentConversation } from '../../presenters/conversation.js';
import { presentLabel } from '../../presenters/inbox.js';
import { parseRowId } from '../rowId.js';
import { labelsOf, setConversationLabels } from './conversationLabels.js';
import { conversationDtoSchema, okSchema, successSchema } from '../../presenters/dtoSchemas.js';

const secured = { security: [{ bearer: [] }] };
const tags = ['inbox'];
const idParams = z.object({ id: z.string() });
const NOT_FOUND = 'Label not found';

const labelDto = z.object({ id: z.number(), name: z.string(), color: z.string() });
const one = z.object({ message: z.literal('success'), data: labelDto });

const taken = () => validationError({ name: [LABEL_NAME_TAKEN] });

/**
 * Labels (issue 16): owner and Admin manage the account's labels ('inbox.manage'); everyone
 * reads them, and anyone who may see a conversation sets its labels. Another account's label
 * or conversation is 404 (or, inside label_ids, an unknown label).
 */
export default async function labelsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const manage = async (request: { actor: Actor }) => authorize(request.actor, 'inbox.manage');
  const inAccount = (actor: Actor, id: number) => and(eq(labels.id, id), eq(labels.accountId, actor.accountId));

  app.get(
    '/labels',
    { schema: { tags, summary: 'The account’s labels, by name', response: { 200: z.object({ message: z.literal('success'), data: z.array(labelDto) }) }, ...secured }, onRequest: authenticate },
    async (request) => {
      const rows = await app.db
        .select()
        .from(labels)
        .where(eq(labels.accountId, request.actor.accountId))
        .orderBy(asc(sql`lower(${labels.name})`), asc(labels.id));
      return { message: 'success' as const, data: rows.map(presentLabel) };
    },
  );

  app.post(
    '/labels',
    { schema: { tags, summary: 'Create a label (owner/Admin)', body: labelSchema, response: { 201: one }, ...secured }, onRequest: [authenticate, manage] },
    async (request, reply) => {
      const { accountId } = request.actor;
      const [{ n } = { n: 0 }] = await app.db.select({ n: count() }).from(labels).where(eq(labels.accountId, accountId));
      if (n >= MAX_LABELS) throw validationError({ _: [TOO_MANY_LABELS] });
      try {
        const [row] = await app.db
          .insert(labels)
          .values({ accountId, ...request.body })
          .returning();
        return reply.status(201).send({ message: 'success' as const, data: presentLabel(row!) });
      } catch (e) {
        if (isUniqueViolation(e)) throw taken();
        throw e;
      }
    },
  );

  app.patch(
    '/labels/:id',
    { schema: { tags, summary: 'Rename or recolour a label (owner/Admin)', params: idParams, body: labelPatchSchema, response: { 200: one }, ...secured }, onRequest: [authenticate, manage] },
    async (request) => {
      const id = parseRowId(request.params.id, NOT_FOUND);
      try {
        const [row] = Object.keys(request.body).length
          ? await app.db.update(labels).set(request.body).where(inAccount(request.actor, id)).returning()
          : await app.db.select().from(labels).where(inAccount(request.actor, id));
        if (!row) throw notFound(NOT_FOUND);
        return { message: 'success' as const, data: presentLabel(row) };
      } catch (e) {
        if (isUniqueViolation(e)) throw taken();
        throw e;
      }
    },
  );

  app.delete(
    '/labels/:id',
    { schema: { response: { 200: successSchema }, tags, summary: 'Delete a label; conversations lose it (owner/Admin)', params: idParams, ...secured }, onRequest: [authenticate, manage] },
    async (request) => {
      const id = parseRowId(request.params.id, NOT_FOUND);
      const gone = await app.db.transaction(async (tx) => {
        // The labelled conversations change too: stamp them for consoles polling changes_since.
        const labelled = tx.select({ id: conversationLabels.conversationId }).from(conversationLabels).where(eq(conversationLabels.labelId, id));
        const touched = await lockConversationsInOrder(tx, and(eq(conversations.accountId, request.actor.accountId), inArray(conversations.id, labelled)));
        if (touched.length > 0) await tx.update(conversations).set({ id: sql`${conversations.id}` }).where(inArray(conversations.id, touched));
        return tx.delete(labels).where(inAccount(request.actor, id)).returning({ id: labels.id });
      });
      if (gone.length === 0) throw notFound(NOT_FOUND);
      return { message: 'success' };
    },
  );

  app.put(
    '/conversations/:visitorId/labels',
    { schema: { response: { 200: okSchema(conversationDtoSchema) }, tags, summary: 'Set a conversation’s labels (anyone who may see it)', params: z.object({ visitorId: z.string() }), body: conversationLabelsSchema, ...secured }, onRequest: authenticate },
    async (request) => {
      const { actor } = request;
      const { visitor, conversation } = await findVisibleVisitor(app.db, actor, request.params.visitorId);
      if (!conversation) throw notFound('Conversation not found');
      const ids = request.body.label_ids;
      await assertOwnLabels(app.db, actor, ids);
      try {
        await app.db.transaction((tx) => setConversationLabels(tx, conversation.id, ids));
      } catch (e) {
        // A label deleted meanwhile (foreign key violation): the same answer as an unknown one.
        if (isForeignKeyViolation(e)) throw validationError({ label_ids: [LABEL_UNKNOWN] });
        throw e;
      }
      const now = (await labelsOf(app.db, [conversation.id])).get(conversation.id) ?? [];
      await app.events.emit('conversation.labeled', { accountId: actor.accountId, conversation, visitor, labels: now });
      return { message: 'success', data: presentConversation(conversation, visitor, now) };
    },
  );
}

/** Every id must be one of the actor's account's labels; anything else is one 422 (never a hint about other accounts). */
async function assertOwnLabels(db: Db, actor: Actor, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  const found = await db
    .select({ id: labels.id })
    .from(labels)
    .where(and(eq(labels.accountId, actor.accountId), inArray(labels.id, ids)));
  if (found.length !== ids.length) throw validationError({ label_ids: [LABEL_UNKNOWN] });
}
