import { eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { visitors } from '../db/schema.js';
import type { VisitorRow } from '../presenters/visitor.js';
import type { DomainEvents } from '../services/domainEvents.js';

export interface VisitorChanges {
  name?: string | undefined;
  email?: string | undefined;
  pageUrl?: string | undefined;
}

/**
 * A visitor's details or page changed (PATCH /api/widget/visitor or the widget socket):
 * a new page counts a page view; last_seen_at is now. Returns undefined if the visitor is gone.
 */
export async function updateVisitor(
  deps: { db: Db; events: DomainEvents },
  current: VisitorRow,
  { name, email, pageUrl }: VisitorChanges,
): Promise<VisitorRow | undefined> {
  const movedPage = pageUrl !== undefined && pageUrl !== '' && pageUrl !== current.currentPage;
  const [visitor] = await deps.db
    .update(visitors)
    .set({
      ...(name !== undefined ? { name } : {}),
      ...(email !== undefined ? { email } : {}),
      ...(movedPage ? { currentPage: pageUrl, pageViews: sql`${visitors.pageViews} + 1` } : {}),
      lastSeenAt: new Date(),
    })
    .where(eq(visitors.id, current.id))
    .returning();
  if (visitor) await deps.events.emit('visitor.updated', { accountId: visitor.accountId, visitor, pageChanged: movedPage });
  return visitor;
}
