/**
 * ECharts parts of the console's bar charts, registered once (design §6): bar series, grid,
 * tooltip, legend and the canvas renderer. Import only from lazily loaded chart components.
 */
import { BarChart, type BarSeriesOption } from 'echarts/charts';
import {
  GridComponent,
  type GridComponentOption,
  LegendComponent,
  type LegendComponentOption,
  TooltipComponent,
  type TooltipComponentOption,
} from 'echarts/components';
import { type ComposeOption, use } from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';

use([BarChart, GridComponent, TooltipComponent, LegendComponent, CanvasRenderer]);

/** Option of a bar chart built from the parts above. */
export type BarChartOption = ComposeOption<
  BarSeriesOption | GridComponentOption | TooltipComponentOption | LegendComponentOption
>;
