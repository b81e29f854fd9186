/**
 * ECharts parts of the console's line charts, registered once (design §6: `echarts/core` with
 * only what is drawn, so each chart chunk stays small): line series, grid, tooltip, legend and
 * the canvas renderer. A chart that needs more (mark areas, data zoom) registers that part
 * beside its own code. Import this module only from lazily loaded chart components.
 */
import { LineChart, type LineSeriesOption } from 'echarts/charts';
import {
  type DataZoomComponentOption,
  GridComponent,
  type GridComponentOption,
  LegendComponent,
  type LegendComponentOption,
  TooltipComponent,
  type TooltipComponentOption,
} from 'echarts/components';
import { type ComposeOption, use } from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';

export type { LineSeriesOption };

use([LineChart, GridComponent, TooltipComponent, LegendComponent, CanvasRenderer]);

type LineChartPart = LineSeriesOption | GridComponentOption | TooltipComponentOption | LegendComponentOption;

/** Option of a line chart built from the parts above (plus the data zoom, which SeriesChart adds). */
export type LineChartOption<Extra extends LineChartPart | DataZoomComponentOption = LineChartPart> =
  ComposeOption<LineChartPart | Extra>;
