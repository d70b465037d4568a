import type { VisitorDto } from '@parley/shared';
import type { visitors } from '../db/schema.js';

export type VisitorRow = typeof visitors.$inferSelect;

/** The visitor fields that leave the server; never the token hash. */
export function presentVisitor(v: VisitorRow): VisitorDto {
  return {
    id: v.id,
    name: v.name,
    email: v.email,
    country: v.country,
    ip: v.ip,
    browser: v.browser,
    os: v.os,
    device: v.device,
    current_page: v.currentPage,
    referrer: v.referrer,
    locale: v.locale,
    page_views: v.pageViews,
    last_seen_at: v.lastSeenAt.toISOString(),
    created_at: v.createdAt.toISOString(),
  };
}
