import type { IntegrationMetricDto } from '@parley/shared';

/** Integration analytics helpers (SPEC.md sections 2 and 4 "Integration page"). Pure. */
export const STATUSES = ['Active', 'Pending', 'Error'] as const;
export type MetricStatus = (typeof STATUSES)[number];

export interface Metric {
  timestamp: string;
  usage_count: number;
  status: MetricStatus;
}

const DAY_MS = 86_400_000;

/** SPEC.md section 4: shown when the metrics call fails, without an error. */
export function sampleMetrics(now: Date = new Date()): Metric[] {
  const at = (daysAgo: number) => new Date(now.getTime() - daysAgo * DAY_MS).toISOString();
  return [
    { timestamp: at(0), usage_count: 5, status: 'Active' },
    { timestamp: at(1), usage_count: 3, status: 'Active' },
    { timestamp: at(2), usage_count: 7, status: 'Pending' },
  ];
}

/** Normalises server rows: usage_count defaults to 1 when missing (SPEC.md section 3). */
export function normalize(rows: unknown): Metric[] {
  if (!Array.isArray(rows)) return [];
  const out: Metric[] = [];
  for (const r of rows as Partial<IntegrationMetricDto>[]) {
    if (!r || typeof r.timestamp !== 'string') continue;
    const status = STATUSES.includes(r.status as MetricStatus) ? (r.status as MetricStatus) : 'Error';
    const usage = typeof r.usage_count === 'number' && Number.isFinite(r.usage_count) ? r.usage_count : 1;
    out.push({ timestamp: r.timestamp, usage_count: usage, status });
  }
  return out;
}

/** Local calendar date key, YYYY-MM-DD. */
function localKey(d: Date): string {
  const m = String(d.getMonth() + 1).padStart(2, '0');
  const day = String(d.getDate()).padStart(2, '0');
  return `${d.getFullYear()}-${m}-${day}`;
}

/** Usage summed per local date over the last 7 days (oldest first), zero-filled. */
export function dailyUsage(metrics: Metric[], now: Date = new Date()): { labels: string[]; values: number[] } {
  const keys: string[] = [];
  const labels: string[] = [];
  for (let i = 6; i >= 0; i--) {
    const d = new Date(now.getFullYear(), now.getMonth(), now.getDate() - i);
    keys.push(localKey(d));
    labels.push(d.toLocaleDateString('en-US', { month: 'short', day: 'numeric' }));
  }
  const sums = new Map(keys.map((k) => [k, 0]));
  for (const m of metrics) {
    const d = new Date(m.timestamp);
    if (Number.isNaN(d.getTime())) continue;
    const k = localKey(d);
    if (sums.has(k)) sums.set(k, (sums.get(k) ?? 0) + m.usage_count);
  }
  return { labels, values: keys.map((k) => sums.get(k) ?? 0) };
}

/**
 * Totals per status. The server already aggregates loads per day and status, so summing
 * usage_count counts loads; a missing count still counts as one (the default above).
 */
export function statusCounts(metrics: Metric[]): Record<MetricStatus, number> {
  const out: Record<MetricStatus, number> = { Active: 0, Pending: 0, Error: 0 };
  for (const m of metrics) out[m.status] += m.usage_count;
  return out;
}
