import { type SQL, and, eq, gte, inArray, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { DashboardStatsDto, StatsRange } from '@parley/shared';
import { aiResolvedCount } from '../../ai/visitors.js';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client.js';
import { aiConversations, aiFeedback, conversations, messages, users, visitors, widgetLoads } from '../../db/schema.js';
import { authenticate } from '../../plugins/auth.js';
import { can, type Actor } from '../../policies/index.js';
import { visibleConversations } from '../../policies/conversations.js';
import { rooms } from '../../realtime/audience.js';
import { onlineVisitorIds } from '../../realtime/visitorPresence.js';
import { averageOf } from '../ratings/rate.js';
import { satisfactionScope } from '../ratings/ratings.js';
import { dashboardStatsDtoSchema, okSchema } from '../../presenters/dtoSchemas.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const SPAN: Record<StatsRange, number> = { '1h': HOUR, '24h': DAY, '7d': 7 * DAY, '30d': 30 * DAY };

const query = z.object({
  range: z.enum(['1h', '24h', '7d', '30d'], { error: 'range must be 1h, 24h, 7d or 30d' }).default('24h'),
  /** The browser's Date#getTimezoneOffset(), so daily buckets start at its midnight. */
  tz_offset: z.coerce.number().int().min(-840).max(840).default(0),
});

/** 24 hourly buckets for 1h/24h (the chart of SPEC.md), 7 or 30 daily ones otherwise. */
export function bucketLayout(range: StatsRange, now: number, tzOffsetMinutes: number) {
  const hourly = range === '1h' || range === '24h';
  const size = hourly ? HOUR : DAY;
  const count = hourly ? 24 : range === '7d' ? 7 : 30;
  const shift = hourly ? 0 : tzOffsetMinutes * 60_000; // local midnight in UTC terms
  const end = Math.floor((now - shift) / size) * size + size + shift;
  return { start: end - size * count, size, count, hourly };
}

type Layout = ReturnType<typeof bucketLayout>;

/**
 * What the asker may count (PRODUCT.md section 2): an Agent's figures cover only the
 * conversations, messages and visitors they may see, like every list they open.
 */
function scopes(actor: Actor) {
  if (can(actor, 'conversations.readAll')) {
    return {
      conversation: eq(conversations.accountId, actor.accountId),
      message: eq(messages.accountId, actor.accountId),
      visitor: eq(visitors.accountId, actor.accountId),
      aiConversation: eq(aiConversations.accountId, actor.accountId),
    };
  }
  const visibleConversation = visibleConversations(actor);
  const visibleConversationOf = (conversationId: AnyPgColumn) =>
    sql`exists (select 1 from ${conversations} where ${conversations.id} = ${conversationId} and ${visibleConversation})`;
  return {
    conversation: visibleConversation,
    message: and(eq(messages.accountId, actor.accountId), visibleConversationOf(messages.conversationId)) as SQL,
    // A visitor without a conversation is visible to everyone in the account (visibleVisitors).
    visitor: and(
      eq(visitors.accountId, actor.accountId),
      sql`not exists (select 1 from ${conversations} where ${conversations.visitorId} = ${visitors.id} and not (${visibleConversation}))`,
    ) as SQL,
    aiConversation: and(eq(aiConversations.accountId, actor.accountId), visibleConversationOf(aiConversations.conversationId)) as SQL,
  };
}

type Scopes = ReturnType<typeof scopes>;

/**
 * Page views per bucket: one widget load is one page of the website shown with the widget on it
 * (the same rows as the integration page's usage). Account-wide, like that page.
 */
async function pageViewHistogram(db: Db, accountId: string, b: Layout): Promise<number[]> {
  const start = new Date(b.start);
  const bucket = bucketOf(widgetLoads.createdAt, start, b);
  const rows = await db
    .select({ b: bucket, n: sql<number>`count(*)::int` })
    .from(widgetLoads)
    .where(and(eq(widgetLoads.accountId, accountId), gte(widgetLoads.createdAt, start)))
    .groupBy(sql`1`);
  const out = new Array<number>(b.count).fill(0);
  for (const r of rows) if (r.b >= 0 && r.b < b.count) out[r.b] = Number(r.n);
  return out;
}

/**
 * The bucket of a time: date_part (double precision) rather than extract (numeric since
 * PostgreSQL 14), whose arithmetic made the 30-day histograms several times slower.
 */
function bucketOf(col: AnyPgColumn, start: Date, b: Layout) {
  return sql<number>`floor(date_part('epoch', ${col} - ${start.toISOString()}::timestamptz) * 1000 / ${b.size})::int`;
}

async function histogram(db: Db, table: 'visitors' | 'conversations' | 'bot', scope: Scopes, b: Layout): Promise<number[]> {
  const start = new Date(b.start);
  const bucket = (col: AnyPgColumn) => bucketOf(col, start, b);
  const rows =
    table === 'visitors'
      ? await db
          .select({ b: bucket(visitors.createdAt), n: sql<number>`count(*)::int` })
          .from(visitors)
          .where(and(scope.visitor, gte(visitors.createdAt, start)))
          .groupBy(sql`1`)
      : table === 'conversations'
        ? await db
            .select({ b: bucket(conversations.createdAt), n: sql<number>`count(*)::int` })
            .from(conversations)
            .where(and(scope.conversation, gte(conversations.createdAt, start)))
            .groupBy(sql`1`)
        : await db
            .select({ b: bucket(messages.createdAt), n: sql<number>`count(*)::int` })
            .from(messages)
            .where(and(scope.message, gte(messages.createdAt, start), eq(messages.senderType, 'bot')))
            .groupBy(sql`1`);
  const out = new Array<number>(b.count).fill(0);
  for (const r of rows) if (r.b >= 0 && r.b < b.count) out[r.b] = Number(r.n);
  return out;
}

const count = async (q: Promise<{ n: number }[]>): Promise<number> => Number((await q)[0]?.n ?? 0);

/** Real figures for the dashboard (PRODUCT.md section 10), from indexed SQL per account and range. */
export default async function statsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get('/stats', { schema: { response: { 200: okSchema(dashboardStatsDtoSchema) }, tags: ['dashboard'], querystring: query, security: [{ bearer: [] }] }, onRequest: authenticate }, async (request) => {
    const { range, tz_offset: tzOffset } = request.query;
    const accountId = request.actor.accountId;
    const scope = scopes(request.actor);
    const db = app.db;
    const now = Date.now();
    const since = new Date(now - SPAN[range]);
    const before = new Date(now - 2 * SPAN[range]);
    const layout = bucketLayout(range, now, tzOffset);
    const n = sql<number>`count(*)::int`;

    // The Satisfaction card (issue 13): the range's visitor ratings, its own small query (routes/ratings).
    const satisfaction = averageOf(db, satisfactionScope(request.actor, since));
    satisfaction.catch(() => {}); // awaited below; never an unhandled rejection if another query fails first
    const [fresh, previous, chats, firstResponse, devices, feedback, teamTotal, series, aiResolved] = await Promise.all([
      count(db.select({ n }).from(visitors).where(and(scope.visitor, gte(visitors.createdAt, since)))),
      count(
        db
          .select({ n })
          .from(visitors)
          .where(and(scope.visitor, gte(visitors.createdAt, before), sql`${visitors.createdAt} < ${since.toISOString()}::timestamptz`)),
      ),
      count(db.select({ n }).from(conversations).where(and(scope.conversation, gte(conversations.lastMessageAt, since)))),
      // First response: per conversation whose first visitor message is in the range, the first
      // staff reply after it; both times are kept on the conversation (migration 0017), so this
      // reads the range's conversations, never the messages.
      db.execute<{ avg: string | null }>(sql`
        select avg(extract(epoch from (${conversations.firstReplyAt} - ${conversations.firstVisitorMessageAt}))) as avg
        from ${conversations}
        where ${scope.conversation} and ${conversations.firstVisitorMessageAt} >= ${since.toISOString()}::timestamptz
          and ${conversations.firstReplyAt} is not null`),
      // Visitors seen in the range, by device: their sum is the range's active visitors.
      db
        .select({ device: visitors.device, n })
        .from(visitors)
        .where(and(scope.visitor, gte(visitors.lastSeenAt, since)))
        .groupBy(visitors.device),
      db
        .select({ value: aiFeedback.value, n })
        .from(aiFeedback)
        .where(and(eq(aiFeedback.accountId, accountId), gte(aiFeedback.updatedAt, since)))
        .groupBy(aiFeedback.value),
      count(db.select({ n }).from(users).where(eq(users.accountId, accountId))),
      Promise.all([
        histogram(db, 'visitors', scope, layout),
        histogram(db, 'conversations', scope, layout),
        histogram(db, 'bot', scope, layout),
        pageViewHistogram(db, accountId, layout),
      ]),
      aiResolvedCount(db, accountId, since, scope.aiConversation),
    ]);

    const [consoleSockets, online] = await Promise.all([
      app.io.in(rooms.console(accountId)).fetchSockets().catch(() => []),
      onlineVisitorIds(app.io, accountId),
    ]);
    const unique = (list: { data: unknown }[], key: (d: any) => unknown) => new Set(list.map((s) => key(s.data))).size;
    // An Agent counts only the online visitors they may see.
    const onlineIds = [...online];
    const onlineVisitors =
      onlineIds.length === 0 || can(request.actor, 'conversations.readAll')
        ? onlineIds.length
        : await count(db.select({ n }).from(visitors).where(and(scope.visitor, inArray(visitors.id, onlineIds))));

    const avgRow = (firstResponse as { rows: { avg: string | null }[] }).rows[0];
    const seen = devices.reduce((sum, d) => sum + Number(d.n), 0);
    const deviceCounts = { desktop: 0, mobile: 0, tablet: 0 };
    for (const d of devices) {
      const key = d.device.toLowerCase();
      if (key === 'desktop' || key === 'mobile' || key === 'tablet') deviceCounts[key] += Number(d.n);
    }
    const deviceTotal = deviceCounts.desktop + deviceCounts.mobile + deviceCounts.tablet;
    const pct = (x: number) => Math.round((x / deviceTotal) * 100);
    const fb = Object.fromEntries(feedback.map((f) => [f.value, Number(f.n)])) as Record<string, number>;
    const fbTotal = (fb.helpful ?? 0) + (fb.partially_helpful ?? 0) + (fb.not_helpful ?? 0);
    const [visitorSeries, chatSeries, botSeries, pageViewSeries] = series;

    const data: DashboardStatsDto = {
      range,
      active_visitors: seen,
      visitors_change_pct: previous > 0 ? Math.round(((fresh - previous) / previous) * 100) : null,
      online_visitors: onlineVisitors,
      active_chats: chats,
      ai_resolved: aiResolved,
      ai_accuracy_pct: fbTotal > 0 ? Math.round((((fb.helpful ?? 0) + 0.5 * (fb.partially_helpful ?? 0)) / fbTotal) * 100) : null,
      satisfaction: (await satisfaction).average,
      avg_first_response_seconds: avgRow?.avg != null ? Math.round(Number(avgRow.avg)) : null,
      uptime_pct: null, // measured by the operator's monitoring, not by the app itself
      team_online: { online: unique(consoleSockets, (d) => d.actor?.id), total: teamTotal },
      series: {
        buckets: Array.from({ length: layout.count }, (_, i) => new Date(layout.start + i * layout.size).toISOString()),
        labels: Array.from({ length: layout.count }, (_, i) => {
          const d = new Date(layout.start + i * layout.size - tzOffset * 60_000);
          return layout.hourly ? `${String(d.getUTCHours()).padStart(2, '0')}:00` : d.toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
        }),
        visitors: visitorSeries,
        chats: chatSeries,
        page_views: pageViewSeries,
        ai_answers: botSeries,
      },
      devices: deviceTotal > 0 ? { desktop: pct(deviceCounts.desktop), mobile: pct(deviceCounts.mobile), tablet: pct(deviceCounts.tablet) } : null,
    };
    return { message: 'success', data };
  });
}
