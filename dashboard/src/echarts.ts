/** The parts of ECharts the dashboard draws with, in a chunk of their own loaded by the first chart. */
import { BarChart, LineChart } from 'echarts/charts';
import { AriaComponent, DatasetComponent, GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import { init, use } from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';

use([BarChart, LineChart, AriaComponent, DatasetComponent, GridComponent, LegendComponent, TooltipComponent, CanvasRenderer]);

export { init };
