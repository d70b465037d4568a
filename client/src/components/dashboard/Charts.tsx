/**
 * echarts pieces of the dashboard. Loaded lazily by the Dashboard screen only, and built from
 * echarts/core with just the line and pie charts, so no other route downloads echarts.
 */
import ReactEChartsCore from 'echarts-for-react/lib/core';
import { LineChart, PieChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';

echarts.use([LineChart, PieChart, GridComponent, TooltipComponent, LegendComponent, CanvasRenderer]);

export interface LineSeries {
  name: string;
  data: number[];
  color: string;
}

export function LiveLineChart({ labels, series, ariaLabel }: { labels: string[]; series: LineSeries[]; ariaLabel: string }) {
  const option = {
    aria: { enabled: true, label: { description: ariaLabel } },
    tooltip: { trigger: 'axis' },
    legend: { bottom: 0, icon: 'circle', textStyle: { color: '#4a5568' } },
    grid: { left: 36, right: 16, top: 16, bottom: 48 },
    xAxis: { type: 'category', boundaryGap: false, data: labels, axisLine: { lineStyle: { color: '#cfd4e1' } }, axisLabel: { color: '#5f6b7d' } },
    yAxis: { type: 'value', minInterval: 1, splitLine: { lineStyle: { color: '#edf0f6' } }, axisLabel: { color: '#5f6b7d' } },
    series: series.map((s) => ({
      name: s.name,
      type: 'line',
      smooth: true,
      symbol: 'none',
      data: s.data,
      lineStyle: { width: 2.5, color: s.color },
      itemStyle: { color: s.color },
      areaStyle: { color: new echarts.graphic.LinearGradient(0, 0, 0, 1, [{ offset: 0, color: `${s.color}33` }, { offset: 1, color: `${s.color}00` }]) },
    })),
  };
  return (
    <div role="img" aria-label={ariaLabel}>
      <ReactEChartsCore echarts={echarts} option={option} notMerge className="chart-box" />
    </div>
  );
}

export function DoughnutChart({ data, ariaLabel }: { data: { name: string; value: number; color: string }[]; ariaLabel: string }) {
  const option = {
    tooltip: { trigger: 'item', formatter: '{b}: {c}%' },
    legend: { bottom: 0, icon: 'circle', textStyle: { color: '#4a5568' } },
    series: [
      {
        type: 'pie',
        radius: ['55%', '78%'],
        center: ['50%', '44%'],
        avoidLabelOverlap: true,
        label: { show: false },
        itemStyle: { borderColor: '#fff', borderWidth: 3 },
        data: data.map((d) => ({ name: d.name, value: d.value, itemStyle: { color: d.color } })),
      },
    ],
  };
  return (
    <div role="img" aria-label={ariaLabel}>
      <ReactEChartsCore echarts={echarts} option={option} notMerge className="chart-box-sm" />
    </div>
  );
}
