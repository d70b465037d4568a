import type { ConversationDto, VisitorDto } from '@parley/shared';

export type Range = '1h' | '24h' | '7d' | '30d';
export const RANGES: { value: Range; label: string }[] = [
  { value: '1h', label: '1 Hour' },
  { value: '24h', label: '24 Hours' },
  { value: '7d', label: '7 Days' },
  { value: '30d', label: '30 Days' },
];
export const RANGE_MS: Record<Range, number> = { '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 };

/**
 * What the dashboard shows. `null` means "no data yet" (PRODUCT.md section 10: a card says so
 * instead of inventing a number). The future GET /api/vms/stats?range= answers this shape in `data`.
 */
export interface DashboardFigures {
  range: Range;
  active_visitors: number;
  visitors_change_pct: number | null;
  active_chats: number;
  ai_resolved: number | null;
  ai_accuracy_pct: number | null;
  satisfaction: number | null;
  avg_first_response_seconds: number | null;
  uptime_pct: number | null;
  team_online: { online: number; total: number } | null;
  /** Buckets oldest first; labels are display strings. */
  series: { labels: string[]; visitors: number[]; chats: number[]; page_views: number[] | null; ai_answers: number[] | null };
  devices: { desktop: number; mobile: number; tablet: number } | null;
}

const ts = (v: string | null | undefined) => (v ? Date.parse(v) : Number.NaN);

/** Bucket layout per range: 24 hourly buckets for 1h/24h (SPEC.md), daily for 7d/30d. */
export function buckets(range: Range, now: number): { start: number; size: number; count: number; labels: string[] } {
  const hourly = range === '1h' || range === '24h';
  const size = hourly ? 3_600_000 : 86_400_000;
  const count = hourly ? 24 : range === '7d' ? 7 : 30;
  const end = hourly ? Math.floor(now / size) * size + size : new Date(new Date(now).setHours(24, 0, 0, 0)).getTime();
  const start = end - size * count;
  const labels = Array.from({ length: count }, (_, i) => {
    const d = new Date(start + i * size);
    return hourly ? `${String(d.getHours()).padStart(2, '0')}:00` : d.toLocaleDateString('en-US', { month: 'short', day: 'numeric' });
  });
  return { start, size, count, labels };
}

function histogram(times: number[], b: { start: number; size: number; count: number }): number[] {
  const out = new Array<number>(b.count).fill(0);
  for (const t of times) {
    if (Number.isNaN(t)) continue;
    const i = Math.floor((t - b.start) / b.size);
    if (i >= 0 && i < b.count) out[i] = (out[i] ?? 0) + 1;
  }
  return out;
}

/** Device split in whole percentages from the visitors' recorded device type. */
export function deviceSplit(visitors: VisitorDto[]): DashboardFigures['devices'] {
  const counts = { desktop: 0, mobile: 0, tablet: 0 };
  for (const v of visitors) {
    const d = (v.device || '').toLowerCase();
    if (d.includes('tablet') || d.includes('ipad')) counts.tablet++;
    else if (d.includes('mobile') || d.includes('phone')) counts.mobile++;
    else if (d) counts.desktop++;
  }
  const total = counts.desktop + counts.mobile + counts.tablet;
  if (!total) return null;
  const pct = (n: number) => Math.round((n / total) * 100);
  return { desktop: pct(counts.desktop), mobile: pct(counts.mobile), tablet: pct(counts.tablet) };
}

/** Figures computed in the browser from the two lists, until the stats endpoint exists. */
export function figuresFromLists(range: Range, visitors: VisitorDto[], conversations: ConversationDto[], now = Date.now()): DashboardFigures {
  const span = RANGE_MS[range];
  const since = now - span;
  const inRange = (t: number) => !Number.isNaN(t) && t >= since && t <= now;
  const visitorTimes = visitors.map((v) => ts(v.last_seen_at) || ts(v.created_at));
  const current = visitors.filter((_, i) => inRange(visitorTimes[i]!)).length;
  const previous = visitors.filter((_, i) => {
    const t = visitorTimes[i]!;
    return t >= since - span && t < since;
  }).length;
  const b = buckets(range, now);
  return {
    range,
    active_visitors: current,
    visitors_change_pct: previous > 0 ? Math.round(((current - previous) / previous) * 100) : null,
    active_chats: conversations.filter((c) => inRange(ts(c.last_message_at))).length,
    ai_resolved: null,
    ai_accuracy_pct: null,
    satisfaction: null,
    avg_first_response_seconds: null,
    uptime_pct: null,
    team_online: null,
    series: {
      labels: b.labels,
      visitors: histogram(visitorTimes, b),
      chats: histogram(conversations.map((c) => ts(c.last_message_at)), b),
      page_views: null,
      ai_answers: null,
    },
    devices: deviceSplit(visitors),
  };
}

/** "1m 05s" style duration for the average response card. */
export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds)}s`;
  const m = Math.floor(seconds / 60);
  const s = Math.round(seconds % 60);
  return m < 60 ? `${m}m ${String(s).padStart(2, '0')}s` : `${Math.floor(m / 60)}h ${m % 60}m`;
}
