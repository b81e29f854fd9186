/**
 * Heat map of a BMS cell array (`cells.u_v` in V or `cells.t_c` in °C, cell n = index n − 1)
 * laid out row by row in `columns` columns, coloured by a continuous scale between the array's
 * minimum and maximum, with the maximum and minimum cells outlined. ECharts HeatmapChart with
 * VisualMap, Grid and Tooltip through `echarts/core` (design §6).
 * Test hooks: `data-cells` (cells drawn).
 */
import { HeatmapChart, type HeatmapSeriesOption } from 'echarts/charts';
import {
  GridComponent,
  type GridComponentOption,
  TooltipComponent,
  type TooltipComponentOption,
  VisualMapComponent,
  type VisualMapComponentOption,
} from 'echarts/components';
import { type ComposeOption, use } from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import { useMemo } from 'react';
import { useEChart } from '@/shared/charts/useEChart';
import { formatNumber } from '@/shared/format';

use([HeatmapChart, GridComponent, TooltipComponent, VisualMapComponent, CanvasRenderer]);

type Option = ComposeOption<
  HeatmapSeriesOption | GridComponentOption | TooltipComponentOption | VisualMapComponentOption
>;

/** Columns that keep cells about square in a panel twice as wide as high. */
export function heatColumns(count: number): number {
  return Math.max(1, Math.min(count, Math.ceil(Math.sqrt(count * 2.2))));
}

export interface HeatMapProps {
  values: number[];
  unit: string;
  digits: number;
  /** Tooltip text of a cell: "Cell {{n}}". */
  cellLabel: (n: number) => string;
  colors: string[];
  testId?: string;
}

function buildOption({ values, unit, digits, cellLabel, colors }: HeatMapProps): Option {
  const columns = heatColumns(values.length);
  const rows = Math.ceil(values.length / columns);
  const min = Math.min(...values);
  const max = Math.max(...values);
  const maxAt = values.indexOf(max);
  const minAt = values.indexOf(min);
  const data = values.map((v, i) => ({
    value: [i % columns, rows - 1 - Math.floor(i / columns), v] as [number, number, number],
    itemStyle:
      i === maxAt || i === minAt
        ? { borderColor: i === maxAt ? '#ff4d4f' : '#40a9ff', borderWidth: 3 }
        : { borderColor: '#050d1a', borderWidth: 1 },
  }));
  return {
    animation: false,
    grid: { left: 4, right: 90, top: 4, bottom: 4 },
    tooltip: {
      confine: true,
      backgroundColor: 'rgba(6,22,44,0.95)',
      borderColor: '#4096ff',
      textStyle: { color: '#e6f0ff' },
      formatter: (p) => {
        const [x, y, v] = (p as unknown as { value: [number, number, number] }).value;
        const n = (rows - 1 - y) * columns + x + 1;
        return `${cellLabel(n)}: ${formatNumber(v, digits)} ${unit}`;
      },
    },
    xAxis: { type: 'category', data: [...Array(columns).keys()], show: false },
    yAxis: { type: 'category', data: [...Array(rows).keys()], show: false },
    visualMap: {
      min: min === max ? min - 1 : min,
      max: min === max ? max + 1 : max,
      calculable: false,
      orient: 'vertical',
      right: 0,
      top: 'middle',
      itemHeight: 220,
      precision: digits,
      text: [`${formatNumber(max, digits)} ${unit}`, `${formatNumber(min, digits)} ${unit}`],
      textStyle: { color: '#c9d6ea', fontSize: 14 },
      inRange: { color: colors },
    },
    series: [{ type: 'heatmap', data, emphasis: { itemStyle: { borderColor: '#fff', borderWidth: 2 } } }],
  };
}

/** The heat map; redraws on new values and follows its container's size. */
export default function CellHeatMap(props: HeatMapProps) {
  const ref = useEChart(useMemo(() => (props.values.length ? buildOption(props) : null), [props]));
  return (
    <div ref={ref} className="screen-chart" data-testid={props.testId} data-cells={props.values.length} />
  );
}
