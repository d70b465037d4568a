import { and, eq, gte, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { TRANSCRIPT_EMAIL_NEEDED, TRANSCRIPT_NOTHING_YET, TRANSCRIPT_TOO_MANY, TRANSCRIPTS_PER_HOUR, type TranscriptRequestDto } from '@parley/shared';
import type { Tx } from '../../db/client.js';
import { conversations, sentEmails, transcriptRequests } from '../../db/schema.js';
import { HttpError } from '../../errors.js';
import { TRANSCRIPT_JOB } from '../../jobs/transcript.js';
import { authenticateVisitor, limitWidgetCalls } from '../../plugins/visitorAuth.js';
import type { ConversationRow } from '../../presenters/conversation.js';
import { okSchema, transcriptRequestDtoSchema } from '../../presenters/dtoSchemas.js';

/**
 * Issue 13, transcripts: the visitor asks from the widget's menu once their email is known. A
 * resolved conversation's stretch is emailed at once; otherwise the request waits and the
 * stretch is emailed when the conversation is resolved (by anyone, or auto-resolve).
 * Registered with prefix '/api'.
 */
export default async function transcriptRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  limitWidgetCalls(app);

  /** Transcripts emailed (or being emailed) from this conversation in the last hour. */
  const sentThisHour = async (tx: Tx, conversationId: number) => {
    const [recent] = await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(sentEmails)
      .where(and(eq(sentEmails.conversationId, conversationId), eq(sentEmails.kind, 'transcript'), gte(sentEmails.createdAt, new Date(Date.now() - 3_600_000))));
    return Number(recent?.n ?? 0);
  };

  const queueSend = (tx: Tx, c: ConversationRow, email: string, sent: number) =>
    app.jobs.enqueue(
      TRANSCRIPT_JOB,
      { accountId: c.accountId, conversationId: c.id, email, from: c.openedAt.toISOString(), key: `transcript:${c.id}:${Date.now()}:${Math.random().toString(36).slice(2, 8)}` },
      // Asked again before that email went: still one email. The key names the hour's next email,
      // so an ask once it went (its job records it before sending) is a new email, even while the
      // job that sent it is still finishing.
      { dedupeKey: `transcript:${c.id}:${sent}` },
      tx,
    );

  app.post('/widget/transcript', { schema: { response: { 200: okSchema(transcriptRequestDtoSchema) }, tags: ['widget'], security: [{ bearer: [] }] }, onRequest: authenticateVisitor }, async (request) => {
    const visitor = request.visitor;
    if (!visitor.email) throw new HttpError(422, TRANSCRIPT_EMAIL_NEEDED, { email: [TRANSCRIPT_EMAIL_NEEDED] });
    const status = await app.db.transaction(async (tx) => {
      const [c] = await tx.select().from(conversations).where(eq(conversations.visitorId, visitor.id)).for('update');
      if (!c) throw new HttpError(409, TRANSCRIPT_NOTHING_YET);
      // The address is only the visitor's word: a few transcripts an hour per conversation at most.
      const sent = await sentThisHour(tx, c.id);
      if (sent >= TRANSCRIPTS_PER_HOUR) throw new HttpError(429, TRANSCRIPT_TOO_MANY);
      if (c.status === 'resolved') {
        await queueSend(tx, c, visitor.email, sent);
        return 'sent' as const;
      }
      await tx
        .insert(transcriptRequests)
        .values({ conversationId: c.id, accountId: c.accountId, email: visitor.email })
        .onConflictDoUpdate({ target: transcriptRequests.conversationId, set: { email: visitor.email, requestedAt: new Date() } });
      return 'scheduled' as const;
    });
    if (status === 'sent') app.jobs.wake();
    const data: TranscriptRequestDto = { status };
    return { message: 'success', data };
  });

  // A resolve sends what was asked for: the request row goes and the job comes in one transaction.
  app.events.on(
    'conversation.changed',
    async ({ conversation }) => {
      if (conversation.status !== 'resolved') return;
      const queued = await app.db.transaction(async (tx) => {
        const [request] = await tx.delete(transcriptRequests).where(eq(transcriptRequests.conversationId, conversation.id)).returning();
        if (!request) return false;
        await queueSend(tx, conversation, request.email, await sentThisHour(tx, conversation.id));
        return true;
      });
      if (queued) app.jobs.wake();
    },
    { background: true },
  );
}
