import { BarChart, LineChart } from 'echarts/charts';
import { GridComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import ReactEChartsCore from 'echarts-for-react/lib/core';
import { useMemo } from 'react';
import { dailyUsage, type Metric, STATUSES, statusCounts } from './metrics';

// Only the pieces these two charts need, so the chunk stays small.
echarts.use([LineChart, BarChart, GridComponent, TooltipComponent, CanvasRenderer]);

const CHART_STYLE = { height: 260, width: '100%' };
const STATUS_COLORS: Record<string, string> = { Active: '#1a8a4a', Pending: '#c98a00', Error: '#d0342c' };

/** 'Daily Integration Usage' (line) and 'Integration Status' (bar). Loaded lazily by the screen. */
export default function IntegrationCharts({ metrics }: { metrics: Metric[] }) {
  const daily = useMemo(() => dailyUsage(metrics), [metrics]);
  const counts = useMemo(() => statusCounts(metrics), [metrics]);

  const lineOption = {
    grid: { left: 40, right: 16, top: 16, bottom: 32 },
    tooltip: { trigger: 'axis' },
    xAxis: { type: 'category', data: daily.labels, boundaryGap: false },
    yAxis: { type: 'value', minInterval: 1 },
    series: [{ name: 'Usage', type: 'line', smooth: true, data: daily.values, areaStyle: { opacity: 0.12 }, itemStyle: { color: '#5a4fcf' } }],
  };
  const barOption = {
    grid: { left: 40, right: 16, top: 16, bottom: 32 },
    tooltip: { trigger: 'axis' },
    xAxis: { type: 'category', data: [...STATUSES] },
    yAxis: { type: 'value', minInterval: 1 },
    series: [
      {
        name: 'Loads',
        type: 'bar',
        barWidth: '45%',
        data: STATUSES.map((s) => ({ value: counts[s], itemStyle: { color: STATUS_COLORS[s], borderRadius: [6, 6, 0, 0] } })),
      },
    ],
  };

  const dailySummary = daily.labels.map((l, i) => `${l}: ${daily.values[i]}`).join(', ');
  const statusSummary = STATUSES.map((s) => `${s}: ${counts[s]}`).join(', ');
  return (
    <div className="int-charts">
      <figure className="int-card">
        <h3 id="int-daily">Daily Integration Usage</h3>
        <div role="img" aria-labelledby="int-daily" aria-describedby="int-daily-desc">
          <ReactEChartsCore echarts={echarts} option={lineOption} style={CHART_STYLE} notMerge />
        </div>
        <figcaption id="int-daily-desc" className="int-sr">{dailySummary}</figcaption>
      </figure>
      <figure className="int-card">
        <h3 id="int-status">Integration Status</h3>
        <div role="img" aria-labelledby="int-status" aria-describedby="int-status-desc">
          <ReactEChartsCore echarts={echarts} option={barOption} style={CHART_STYLE} notMerge />
        </div>
        <figcaption id="int-status-desc" className="int-sr">{statusSummary}</figcaption>
      </figure>
    </div>
  );
}
