import { eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { visitors } from '../db/schema.js';
import type { VisitorRow } from '../presenters/visitor.js';
import type { DomainEvents } from '../services/domainEvents.js';

export interface VisitorChanges {
  name?: string | undefined;
  email?: string | undefined;
  pageUrl?: string | undefined;
  /** The visitor's own IANA zone (the widget reports it). */
  timeZone?: string | undefined;
}

/** `seen: false` when the team edits the visitor (side panel): the visitor was not seen then. */
export interface UpdateVisitorOptions {
  seen?: boolean;
}

/**
 * A visitor's details or page changed (PATCH /api/widget/visitor or the widget socket):
 * a new page counts a page view; last_seen_at is now. Returns undefined if the visitor is gone.
 */
export async function updateVisitor(
  deps: { db: Db; events: DomainEvents },
  current: VisitorRow,
  { name, email, pageUrl, timeZone }: VisitorChanges,
  { seen = true }: UpdateVisitorOptions = {},
): Promise<VisitorRow | undefined> {
  const movedPage = pageUrl !== undefined && pageUrl !== '' && pageUrl !== current.currentPage;
  const [visitor] = await deps.db
    .update(visitors)
    .set({
      ...(name !== undefined ? { name } : {}),
      ...(email !== undefined ? { email } : {}),
      ...(timeZone !== undefined && timeZone !== current.timeZone ? { timeZone } : {}),
      ...(movedPage ? { currentPage: pageUrl, pageViews: sql`${visitors.pageViews} + 1` } : {}),
      ...(seen ? { lastSeenAt: new Date() } : {}),
    })
    .where(eq(visitors.id, current.id))
    .returning();
  const detailsChanged = (name !== undefined && name !== current.name) || (email !== undefined && email !== current.email);
  if (visitor) await deps.events.emit('visitor.updated', { accountId: visitor.accountId, visitor, pageChanged: movedPage, detailsChanged });
  return visitor;
}
