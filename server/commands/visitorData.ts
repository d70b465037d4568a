import { and, asc, eq, inArray } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { publicUrlOf } from '../config.js';
import { aiPatterns, conversations, messages, visitors } from '../db/schema.js';

/**
 * One visitor's data (issue 14, GDPR): the export a business hands to the person, and the
 * erasure of everything Parley holds about them. Both read only through the account's id.
 */

/** Everything about one visitor as a JSON document; undefined when not in this account. */
export async function exportVisitor(app: FastifyInstance, accountId: string, visitorId: string) {
  const [visitor] = await app.db.select().from(visitors).where(and(eq(visitors.accountId, accountId), eq(visitors.id, visitorId)));
  if (!visitor) return undefined;
  const { tokenHash: _secret, accountId: _account, ...profile } = visitor;
  const convs = await app.db.select().from(conversations).where(and(eq(conversations.accountId, accountId), eq(conversations.visitorId, visitorId))).orderBy(asc(conversations.id));
  const ids = convs.map((c) => c.id);
  const rows = ids.length
    ? await app.db
        .select()
        .from(messages)
        // Every line, private notes included: they are data about the person (right of access);
        // sender_type tells them apart.
        .where(and(eq(messages.accountId, accountId), inArray(messages.conversationId, ids)))
        .orderBy(asc(messages.id))
    : [];
  const base = publicUrlOf(app.config);
  const fileUrl = (rel: string) => (rel ? `${base}/storage/${rel}` : '');
  return {
    exported_at: new Date().toISOString(),
    visitor: {
      id: profile.id,
      name: profile.name,
      email: profile.email,
      ip: profile.ip,
      country: profile.country,
      browser: profile.browser,
      os: profile.os,
      device: profile.device,
      current_page: profile.currentPage,
      referrer: profile.referrer,
      locale: profile.locale,
      time_zone: profile.timeZone,
      page_views: profile.pageViews,
      visit_count: profile.visitCount,
      last_seen_at: profile.lastSeenAt.toISOString(),
      created_at: profile.createdAt.toISOString(),
    },
    conversations: convs.map((c) => ({
      id: c.id,
      status: c.status,
      created_at: c.createdAt.toISOString(),
      messages: rows
        .filter((m) => m.conversationId === c.id)
        .map((m) => ({
          id: m.id,
          sender_type: m.senderType,
          message: m.message,
          file_url: fileUrl(m.filePath),
          file_name: m.fileName,
          file_type: m.fileType,
          file_size: m.fileSize,
          created_at: m.createdAt.toISOString(),
        })),
    })),
    files: rows.filter((m) => m.filePath).map((m) => ({ message_id: m.id, url: fileUrl(m.filePath), name: m.fileName, type: m.fileType, size: m.fileSize })),
  };
}

/**
 * Erases a visitor: their row and, by cascade, their conversations, messages, tokens, claims and
 * the assistant's knowledge learned from their conversations (ai_patterns.conversation_id), then
 * their files through the storage interface. Counted for the audit log; undefined when not found.
 */
export async function eraseVisitor(app: FastifyInstance, accountId: string, visitorId: string): Promise<{ conversations: number; messages: number; files: number; knowledge: number } | undefined> {
  const result = await app.db.transaction(async (tx) => {
    const [visitor] = await tx.select({ id: visitors.id }).from(visitors).where(and(eq(visitors.accountId, accountId), eq(visitors.id, visitorId))).for('update');
    if (!visitor) return undefined;
    const convs = await tx.select({ id: conversations.id }).from(conversations).where(and(eq(conversations.accountId, accountId), eq(conversations.visitorId, visitorId)));
    const ids = convs.map((c) => c.id);
    const msgs = ids.length ? await tx.select({ filePath: messages.filePath }).from(messages).where(inArray(messages.conversationId, ids)) : [];
    // Learned knowledge whose provenance is their conversations (cascade would remove it too; counted here).
    const knowledge = ids.length ? await tx.delete(aiPatterns).where(and(eq(aiPatterns.accountId, accountId), inArray(aiPatterns.conversationId, ids))).returning({ id: aiPatterns.id }) : [];
    await tx.delete(visitors).where(eq(visitors.id, visitorId));
    return { conversations: ids.length, messages: msgs.length, files: msgs.map((m) => m.filePath).filter((p) => p !== ''), knowledge: knowledge.length };
  });
  if (!result) return undefined;
  for (const rel of result.files) await app.storage.remove(rel);
  return { conversations: result.conversations, messages: result.messages, files: result.files.length, knowledge: result.knowledge };
}
