import type { DashboardStatsDto, StatsRange } from '@parley/shared';

export type Range = StatsRange;
export const RANGES: { value: Range; label: string }[] = [
  { value: '1h', label: '1 Hour' },
  { value: '24h', label: '24 Hours' },
  { value: '7d', label: '7 Days' },
  { value: '30d', label: '30 Days' },
];

/** What the dashboard shows: GET /api/vms/stats (`null` figures mean "no data yet"). */
export type DashboardFigures = DashboardStatsDto;

/** "1m 05s" style duration for the average response card. */
export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds)}s`;
  const m = Math.floor(seconds / 60);
  const s = Math.round(seconds % 60);
  return m < 60 ? `${m}m ${String(s).padStart(2, '0')}s` : `${Math.floor(m / 60)}h ${m % 60}m`;
}
