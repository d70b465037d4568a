import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { conversationAssignSchema, conversationStatusSchema } from '@parley/shared';
import { assignConversation, changeConversationStatus, type LifecycleResult } from '../../commands/conversationLifecycle.js';
import { authenticate } from '../../plugins/auth.js';
import { presentConversation } from '../../presenters/conversation.js';
import { conversationDtoSchema, okSchema } from '../../presenters/dtoSchemas.js';

const secured = { security: [{ bearer: [] }] };
const params = z.object({ visitorId: z.string().max(64) });
const present = (r: LifecycleResult) => ({ message: 'success', data: presentConversation(r.conversation, { ...r.visitor, assigneeName: r.assigneeName }) });

/**
 * Issue 16, "Conversation lifecycle" and "Assignment where the work is": status and assignee of
 * one conversation, keyed by visitor like SPEC's calls. Every change writes a system line and is
 * pushed to the audience before and after it (realtime/push.ts).
 */
export default async function lifecycleRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.post(
    '/conversations/:visitorId/status',
    {
      schema: {
        tags: ['conversations'],
        summary: 'Resolve, reopen or snooze a conversation',
        description:
          "open | pending | resolved. Pending with `snoozed_until` (ISO) or `snooze` ('1h', 'tomorrow', 'next_week': 09:00 in the account's time zone) wakes up at that time; pending without either waits for the visitor. A visitor message reopens a pending or resolved conversation. Anyone who may see the conversation; 404 otherwise.",
        params,
        body: conversationStatusSchema,
        response: { 200: okSchema(conversationDtoSchema) },
        ...secured,
      },
      onRequest: authenticate,
    },
    async (request) => {
      const { status, snoozed_until, snooze } = request.body;
      const result = await changeConversationStatus(app, request.actor, request.params.visitorId, {
        status,
        snoozedUntil: snoozed_until ? new Date(snoozed_until) : null,
        snooze,
      });
      return present(result);
    },
  );

  app.post(
    '/conversations/:visitorId/assign',
    {
      schema: {
        tags: ['conversations'],
        summary: 'Assign, reassign or unassign a conversation',
        description:
          'Owner/Admin: `user_id` of any active member of the account, or null. Agent: claim an unassigned conversation (`user_id` = own id) or hand back their own (null); anything else 403. The Team dialog (`POST /team/{id}/assign`) keeps working.',
        params,
        body: conversationAssignSchema,
        response: { 200: okSchema(conversationDtoSchema) },
        ...secured,
      },
      onRequest: authenticate,
    },
    async (request) => present(await assignConversation(app, request.actor, request.params.visitorId, request.body.user_id)),
  );
}
