/**
 * Energy-flow diagram of one site (SVG, no chart library): grid, PV, battery and load around
 * the site's AC bus, each with its power in kW and an animated dashed line running in the
 * direction the energy flows (grid → bus when importing, bus → grid when exporting; battery →
 * bus when discharging, bus → battery when charging; PV → bus; bus → load). Idle or unreported
 * lines are grey and still, active ones carry an arrowhead; an unreported value shows "—". Motion stops under
 * `prefers-reduced-motion`.
 * Test hooks: `energy-flow`; `flow-<grid|pv|battery|load>` with `data-direction`
 * ('to-bus' | 'from-bus' | 'idle') and the kW text in `flow-<node>-kw`.
 */
import type { EnergyFlow as Flow } from '@ess/contract';
import { FLOW_IDLE_KW } from '@ess/contract';
import { useTranslation } from 'react-i18next';
import { formatQuantity } from '@/shared/format';

type NodeKey = 'grid' | 'pv' | 'battery' | 'load';
type Direction = 'to-bus' | 'from-bus' | 'idle';

const BUS = { x: 200, y: 118 };
const NODES: Record<NodeKey, { x: number; y: number; color: string }> = {
  grid: { x: 60, y: 40, color: '#722ed1' },
  pv: { x: 340, y: 40, color: '#faad14' },
  battery: { x: 60, y: 196, color: '#1677ff' },
  load: { x: 340, y: 196, color: '#13a8a8' },
};

function directions(flow: Flow): Record<NodeKey, Direction> {
  const active = (kw: number | null) => kw !== null && Math.abs(kw) >= FLOW_IDLE_KW;
  return {
    grid: flow.gridDirection === 'in' ? 'to-bus' : flow.gridDirection === 'out' ? 'from-bus' : 'idle',
    pv: active(flow.pvKw) && (flow.pvKw ?? 0) > 0 ? 'to-bus' : 'idle',
    battery:
      flow.batteryDirection === 'out' ? 'to-bus' : flow.batteryDirection === 'in' ? 'from-bus' : 'idle',
    load: active(flow.loadKw) ? ((flow.loadKw ?? 0) > 0 ? 'from-bus' : 'to-bus') : 'idle',
  };
}

/** Small pictograms drawn around (0,0), about 24 px. */
function Glyph({ node }: { node: NodeKey }) {
  const common = {
    fill: 'none',
    stroke: '#fff',
    strokeWidth: 2,
    strokeLinecap: 'round',
    strokeLinejoin: 'round',
  } as const;
  switch (node) {
    case 'grid':
      return (
        <g {...common}>
          <path d="M-7 11 L0 -11 L7 11 M-9 -4 H9 M-6 4 H6" />
        </g>
      );
    case 'pv':
      return (
        <g {...common}>
          <path d="M-10 6 L-6 -6 H10 L6 6 Z M-8 0 H8 M2 -6 L-2 6" />
        </g>
      );
    case 'battery':
      return (
        <g {...common}>
          <rect x={-7} y={-9} width={14} height={19} rx={2} />
          <path d="M-3 -11 H3 M-3 3 H3 M0 0 V6" />
        </g>
      );
    default:
      return (
        <g {...common}>
          <path d="M-9 10 V-2 L0 -9 L9 -2 V10 Z M-3 10 V3 H3 V10" />
        </g>
      );
  }
}

/** The diagram of `flow`. */
export function EnergyFlow({ flow }: { flow: Flow }) {
  const { t } = useTranslation();
  const dir = directions(flow);
  const kw: Record<NodeKey, number | null> = {
    grid: flow.gridKw,
    pv: flow.pvKw,
    battery: flow.batteryKw,
    load: flow.loadKw,
  };
  const stateText = (node: NodeKey): string => {
    const d = dir[node];
    if (kw[node] === null) return t('siteMonitor.flow.noData');
    if (d === 'idle') return t('siteMonitor.flow.idle');
    if (node === 'grid')
      return t(d === 'to-bus' ? 'siteMonitor.flow.importing' : 'siteMonitor.flow.exporting');
    if (node === 'battery')
      return t(d === 'to-bus' ? 'siteMonitor.flow.discharging' : 'siteMonitor.flow.charging');
    if (node === 'pv') return t('siteMonitor.flow.generating');
    return t('siteMonitor.flow.consuming');
  };
  const keys: NodeKey[] = ['grid', 'pv', 'battery', 'load'];
  return (
    <figure className="energy-flow" data-testid="energy-flow">
      <svg viewBox="0 0 400 276" role="img" aria-label={t('siteMonitor.flow.title')}>
        {keys.map((key) => {
          const n = NODES[key];
          const d = dir[key];
          // The path runs in the direction of the flow, so the dash animation follows it.
          const [a, b] = d === 'from-bus' ? [BUS, n] : [n, BUS];
          return (
            <g key={key} data-testid={`flow-${key}`} data-direction={d}>
              <line x1={a.x} y1={a.y} x2={b.x} y2={b.y} className="energy-flow__track" />
              <line
                x1={a.x}
                y1={a.y}
                x2={b.x}
                y2={b.y}
                className={`energy-flow__line${d === 'idle' ? '' : ' energy-flow__line--active'}`}
                style={d === 'idle' ? undefined : { stroke: n.color }}
              />
              {d !== 'idle' && (
                <polygon
                  points="-7,-6 7,0 -7,6"
                  fill={n.color}
                  transform={`translate(${(a.x + b.x) / 2} ${(a.y + b.y) / 2}) rotate(${(Math.atan2(b.y - a.y, b.x - a.x) * 180) / Math.PI})`}
                  data-testid={`flow-${key}-arrow`}
                />
              )}
            </g>
          );
        })}
        <g transform={`translate(${BUS.x} ${BUS.y})`}>
          <circle r={20} className="energy-flow__bus" />
          <text className="energy-flow__bus-text" textAnchor="middle" dy="0.35em">
            {t('siteMonitor.flow.bus')}
          </text>
        </g>
        {keys.map((key) => {
          const n = NODES[key];
          return (
            <g key={key} transform={`translate(${n.x} ${n.y})`}>
              <circle r={24} fill={n.color} opacity={dir[key] === 'idle' ? 0.55 : 1} />
              <Glyph node={key} />
              <text className="energy-flow__name" textAnchor="middle" y={40}>
                {t(`siteMonitor.flow.${key}`)}
              </text>
              <text className="energy-flow__kw" textAnchor="middle" y={58} data-testid={`flow-${key}-kw`}>
                {formatQuantity(kw[key] === null ? null : Math.abs(kw[key]!), 'kW')}
              </text>
              <text className="energy-flow__state" textAnchor="middle" y={74}>
                {stateText(key)}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption className="energy-flow__caption">{t('siteMonitor.flow.sign')}</figcaption>
    </figure>
  );
}
