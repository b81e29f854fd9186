/**
 * Energy flow of a site (sign convention design §4): grid (+ import), PV (+ generating),
 * battery (+ discharging, − charging) and load, each joined to the site bus by a line whose
 * dashes move in the direction of the flow; values in kW, as the contract's site-figure rule
 * gives them (`siteFigures`: load = grid + PV + battery, else what the gateway reports).
 * Test hooks: `flow-<node>` with `data-kw`.
 */
import { useTranslation } from 'react-i18next';
import { formatNumber } from '@/shared/format';

export interface FlowValues {
  gridKw: number | null;
  pvKw: number | null;
  batteryKw: number | null;
  loadKw: number | null;
  socPct: number | null;
  /** The site has PV (a PV inverter, or a gateway reporting PV power). */
  hasPv: boolean;
}

const CENTER = { x: 440, y: 250 };
/** Below this, a line shows no flow. */
const IDLE_KW = 0.05;

function Line({
  from,
  kw,
  towardsBus,
}: {
  from: { x: number; y: number };
  kw: number | null;
  towardsBus: boolean;
}) {
  const active = kw !== null && Math.abs(kw) >= IDLE_KW;
  // Dashes move from the path's start (the node) to its end (the bus) unless reversed.
  const reverse = active && !towardsBus;
  const d = `M${from.x},${from.y} L${CENTER.x},${CENTER.y}`;
  return (
    <path
      d={d}
      className={`flow__line${active ? ' flow__line--active' : ''}${reverse ? ' flow__line--reverse' : ''}`}
    />
  );
}

function Node({
  id,
  at,
  name,
  kw,
  hint,
}: {
  id: string;
  at: { x: number; y: number };
  name: string;
  kw: number | null;
  hint?: string;
}) {
  return (
    <g data-testid={`flow-${id}`} data-kw={kw ?? ''}>
      <circle cx={at.x} cy={at.y} r={64} className="flow__node" />
      <text x={at.x} y={at.y - 12} className="flow__name">
        {name}
      </text>
      <text x={at.x} y={at.y + 22} className="flow__value">
        {formatNumber(kw, 1)}
      </text>
      <text x={at.x} y={at.y + 44} className="flow__hint">
        {hint ?? 'kW'}
      </text>
    </g>
  );
}

/** The diagram (SVG, 880×500 user units, scaled to its box). */
export function PowerFlow({ gridKw, pvKw, batteryKw, loadKw: load, socPct, hasPv }: FlowValues) {
  const { t } = useTranslation();
  const nodes = {
    grid: { x: 110, y: 250 },
    pv: { x: 440, y: 80 },
    load: { x: 770, y: 250 },
    battery: { x: 440, y: 420 },
  };
  const dir = (kw: number | null) =>
    kw === null || Math.abs(kw) < IDLE_KW ? t('bigscreen.flow.idle') : undefined;
  return (
    <svg viewBox="0 0 880 500" className="flow" role="img" aria-label={t('bigscreen.flow.title')}>
      <Line from={nodes.grid} kw={gridKw} towardsBus={(gridKw ?? 0) > 0} />
      {hasPv ? <Line from={nodes.pv} kw={pvKw} towardsBus /> : null}
      <Line from={nodes.load} kw={load} towardsBus={(load ?? 0) < 0} />
      <Line from={nodes.battery} kw={batteryKw} towardsBus={(batteryKw ?? 0) > 0} />
      <circle cx={CENTER.x} cy={CENTER.y} r={34} className="flow__node" />
      <text x={CENTER.x} y={CENTER.y + 7} className="flow__hint">
        EMS
      </text>
      <Node
        id="grid"
        at={nodes.grid}
        name={t('bigscreen.flow.grid')}
        kw={gridKw}
        hint={dir(gridKw) ?? ((gridKw ?? 0) > 0 ? t('bigscreen.flow.import') : t('bigscreen.flow.export'))}
      />
      {hasPv ? <Node id="pv" at={nodes.pv} name={t('bigscreen.flow.pv')} kw={pvKw} /> : null}
      <Node id="load" at={nodes.load} name={t('bigscreen.flow.load')} kw={load} />
      <Node
        id="battery"
        at={nodes.battery}
        name={`${t('bigscreen.flow.battery')} ${socPct === null ? '' : `${formatNumber(socPct, 0)}%`}`}
        kw={batteryKw}
        hint={
          dir(batteryKw) ??
          ((batteryKw ?? 0) > 0 ? t('bigscreen.flow.discharging') : t('bigscreen.flow.charging'))
        }
      />
    </svg>
  );
}
