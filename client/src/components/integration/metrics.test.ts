import { describe, expect, it } from 'vitest';
import { dailyUsage, normalize, sampleMetrics, statusCounts } from './metrics';

const NOW = new Date(2026, 2, 10, 15, 0, 0); // 10 March 2026, 15:00 local

describe('sampleMetrics', () => {
  it('gives the three sample metrics of SPEC.md section 4', () => {
    const s = sampleMetrics(NOW);
    expect(s.map((m) => [m.usage_count, m.status])).toEqual([
      [5, 'Active'],
      [3, 'Active'],
      [7, 'Pending'],
    ]);
    expect(new Date(s[0]!.timestamp).getDate()).toBe(10);
    expect(new Date(s[1]!.timestamp).getDate()).toBe(9);
    expect(new Date(s[2]!.timestamp).getDate()).toBe(8);
  });
});

describe('normalize', () => {
  it('defaults a missing usage_count to 1 and drops rows without a timestamp', () => {
    expect(normalize([{ timestamp: '2026-03-10T00:00:00Z', status: 'Active' }, { status: 'Error' }])).toEqual([
      { timestamp: '2026-03-10T00:00:00Z', usage_count: 1, status: 'Active' },
    ]);
  });
  it('answers an empty list for anything that is not a list', () => {
    expect(normalize(null)).toEqual([]);
    expect(normalize({ data: [] })).toEqual([]);
  });
});

describe('dailyUsage', () => {
  it('covers the last 7 local dates, oldest first, summing usage per date', () => {
    const at = (d: number, h: number) => new Date(2026, 2, d, h).toISOString();
    const { labels, values } = dailyUsage(
      normalize([
        { timestamp: at(10, 1), usage_count: 2, status: 'Active' },
        { timestamp: at(10, 23), usage_count: 3, status: 'Error' },
        { timestamp: at(4, 12), usage_count: 4, status: 'Pending' },
        { timestamp: at(3, 12), usage_count: 100, status: 'Active' }, // 8 days ago: outside
      ]),
      NOW,
    );
    expect(labels).toEqual(['Mar 4', 'Mar 5', 'Mar 6', 'Mar 7', 'Mar 8', 'Mar 9', 'Mar 10']);
    expect(values).toEqual([4, 0, 0, 0, 0, 0, 5]);
  });
});

describe('statusCounts', () => {
  it('totals Active, Pending and Error', () => {
    expect(statusCounts(sampleMetrics(NOW))).toEqual({ Active: 8, Pending: 7, Error: 0 });
  });
});
