/**
 * The 24-hour timeline of a daily plan: a bar from 00:00 to 24:00 with one block per period in
 * its tier's colour (sharp red, peak orange, shoulder blue, off-peak green; grey without a
 * tier) showing tier and price, the strategy lane under it (charge ↓ / discharge ↑ / idle with
 * power), hour marks, and the legend. With `onMoveBoundary` the line between two adjoining
 * periods can be dragged (pointer or ←/→ keys), snapping to 15 minutes.
 * Test hooks: `timeline`, `timeline-block-<i>`, `timeline-action-<i>` (with `data-action`),
 * `timeline-handle-<i>`
 * (the boundary after period i), `tier-legend`.
 */
import { ArrowDownOutlined, ArrowUpOutlined, PauseOutlined } from '@ant-design/icons';
import { hhmmOf, TOU_TIERS, type TouAction, type TouPeriod } from '@ess/contract';
import { type KeyboardEvent, type PointerEvent, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatNumber, formatPrice } from '@/shared/format';
import { dayPercent, periodSpan, SNAP_MINUTES, TIER_COLORS } from '../model';

const HOURS = [0, 3, 6, 9, 12, 15, 18, 21, 24];
/** Narrower blocks show their colour only, or no price; narrower strategy items their icon only. */
const TEXT_MIN_PX = 32;
const PRICE_MIN_PX = 44;
const LANE_TEXT_MIN_PX = 84;
/** Horizontal padding of a block (tou.css `.tou-block`), px on each side. */
const BLOCK_PADDING_PX = 4;

let measureContext: CanvasRenderingContext2D | null | undefined;
/**
 * Width of `text` in a block's font (12 px), px: measured on a canvas, or estimated (CJK 12 px,
 * other characters 7 px) where there is none (jsdom).
 */
function textWidthPx(text: string): number {
  if (measureContext === undefined) {
    try {
      measureContext = document.createElement('canvas').getContext('2d');
    } catch {
      measureContext = null;
    }
    if (measureContext)
      measureContext.font = `12px ${getComputedStyle(document.body).fontFamily || 'sans-serif'}`;
  }
  if (measureContext) return measureContext.measureText(text).width;
  return [...text].reduce((w, c) => w + (/[\u3000-\u9fff]/.test(c) ? 12 : 7), 0);
}

/**
 * The tier text a block of `widthPx` shows: the full name when it fits, else the short one
 * (`tou.tiersShort`: 尖/峰/平/谷, Shp/Pk/Sh/Off), else none (the colour, the tooltip and the
 * block's accessible name still say it). Never a name cut on both sides ("houlde").
 */
function tierText(full: string, short: string, widthPx: number): string | null {
  const room = widthPx - 2 * BLOCK_PADDING_PX;
  if (textWidthPx(full) <= room) return full;
  if (textWidthPx(short) <= room) return short;
  return null;
}

export function ActionIcon({ action }: { action: TouAction | null }) {
  if (action === 'charge') return <ArrowDownOutlined />;
  if (action === 'discharge') return <ArrowUpOutlined />;
  if (action === 'idle') return <PauseOutlined />;
  return null;
}

/** Tier colours with their names. */
export function TierLegend() {
  const { t } = useTranslation();
  return (
    <ul className="tou-legend" data-testid="tier-legend">
      {TOU_TIERS.map((tier) => (
        <li key={tier}>
          <span className="tou-legend__swatch" style={{ background: TIER_COLORS[tier] }} aria-hidden="true" />
          {t(`tou.tiers.${tier}`)}
        </li>
      ))}
      <li className="tou-legend__actions">
        <ArrowDownOutlined /> {t('tou.actions.charge')} <ArrowUpOutlined /> {t('tou.actions.discharge')}{' '}
        <PauseOutlined /> {t('tou.actions.idle')}
      </li>
    </ul>
  );
}

interface Props {
  periods: readonly TouPeriod[];
  selected: number | null;
  onSelect: (index: number) => void;
  /** Drag the boundary after period `index` to `minutes` (omit for a read-only timeline). */
  onMoveBoundary?: (index: number, minutes: number) => void;
  /** Periods with rule issues (outlined in red). */
  faulty?: ReadonlySet<number>;
}

export function Timeline({ periods, selected, onSelect, onMoveBoundary, faulty }: Props) {
  const { t } = useTranslation();
  const trackRef = useRef<HTMLDivElement>(null);
  const [dragging, setDragging] = useState<number | null>(null);
  const [trackPx, setTrackPx] = useState(0);

  useEffect(() => {
    const el = trackRef.current;
    if (!el) return;
    const observer = new ResizeObserver(() => setTrackPx(el.clientWidth));
    observer.observe(el);
    setTrackPx(el.clientWidth);
    return () => observer.disconnect();
  }, []);

  /** Width of a span on screen, px. */
  const px = (span: { start: number; end: number }) => ((span.end - span.start) / 1440) * trackPx;

  const minutesAt = (clientX: number) => {
    const rect = trackRef.current?.getBoundingClientRect();
    if (!rect || rect.width === 0) return 0;
    return ((clientX - rect.left) / rect.width) * 1440;
  };

  const spans = periods.map(periodSpan);

  const onPointerDown = (index: number) => (e: PointerEvent<HTMLDivElement>) => {
    e.currentTarget.setPointerCapture(e.pointerId);
    setDragging(index);
    onSelect(index);
  };
  const onPointerMove = (index: number) => (e: PointerEvent<HTMLDivElement>) => {
    if (dragging === index) onMoveBoundary?.(index, minutesAt(e.clientX));
  };
  const onPointerUp = (e: PointerEvent<HTMLDivElement>) => {
    if (e.currentTarget.hasPointerCapture(e.pointerId)) e.currentTarget.releasePointerCapture(e.pointerId);
    setDragging(null);
  };
  const onKeyDown = (index: number, at: number) => (e: KeyboardEvent<HTMLDivElement>) => {
    const step = e.key === 'ArrowLeft' ? -SNAP_MINUTES : e.key === 'ArrowRight' ? SNAP_MINUTES : 0;
    if (step === 0) return;
    e.preventDefault();
    onMoveBoundary?.(index, at + step);
  };

  return (
    <section className="tou-timeline" data-testid="timeline" aria-label={t('tou.timeline.label')}>
      <div className="tou-timeline__track" ref={trackRef}>
        {periods.map((p, i) => {
          const span = spans[i];
          if (!span || span.end <= span.start) return null;
          const color = p.tier ? TIER_COLORS[p.tier] : undefined;
          const label = `${p.start}–${p.end} ${p.tier ? t(`tou.tiers.${p.tier}`) : ''} ${
            p.priceCnyPerKwh !== null ? formatPrice(p.priceCnyPerKwh) : ''
          }`;
          return (
            <button
              // biome-ignore lint/suspicious/noArrayIndexKey: periods are positional
              key={i}
              type="button"
              className={[
                'tou-block',
                p.tier ? '' : 'tou-block--untyped',
                selected === i ? 'tou-block--selected' : '',
                faulty?.has(i) ? 'tou-block--faulty' : '',
              ].join(' ')}
              style={{
                left: `${dayPercent(span.start)}%`,
                width: `${dayPercent(span.end) - dayPercent(span.start)}%`,
                background: color,
              }}
              title={label}
              aria-label={label}
              aria-pressed={selected === i}
              onClick={() => onSelect(i)}
              data-testid={`timeline-block-${i}`}
            >
              {px(span) >= TEXT_MIN_PX && (
                <span className="tou-block__text">
                  <span className="tou-block__label">
                    {p.tier
                      ? tierText(t(`tou.tiers.${p.tier}`), t(`tou.tiersShort.${p.tier}`), px(span))
                      : '?'}
                  </span>
                  {p.priceCnyPerKwh !== null && px(span) >= PRICE_MIN_PX && (
                    <small>{formatPrice(p.priceCnyPerKwh)}</small>
                  )}
                </span>
              )}
            </button>
          );
        })}
        {onMoveBoundary &&
          periods.slice(0, -1).map((p, i) => {
            const a = spans[i];
            const b = spans[i + 1];
            if (!a || !b || a.end !== b.start || a.end >= 1440) return null;
            return (
              <div
                // biome-ignore lint/suspicious/noArrayIndexKey: boundaries are positional
                key={i}
                role="slider"
                tabIndex={0}
                aria-label={t('tou.timeline.boundary', { n: i + 1, m: i + 2 })}
                aria-valuemin={a.start + SNAP_MINUTES}
                aria-valuemax={b.end - SNAP_MINUTES}
                aria-valuenow={a.end}
                aria-valuetext={p.end}
                className={dragging === i ? 'tou-handle tou-handle--dragging' : 'tou-handle'}
                style={{ left: `${dayPercent(a.end)}%` }}
                onPointerDown={onPointerDown(i)}
                onPointerMove={onPointerMove(i)}
                onPointerUp={onPointerUp}
                onPointerCancel={onPointerUp}
                onKeyDown={onKeyDown(i, a.end)}
                data-testid={`timeline-handle-${i}`}
              >
                {dragging === i && <span className="tou-handle__time">{hhmmOf(a.end)}</span>}
              </div>
            );
          })}
      </div>
      <div className="tou-timeline__lane" title={t('tou.timeline.strategyLane')}>
        {periods.map((p, i) => {
          const span = spans[i];
          if (!span || span.end <= span.start) return null;
          const power = p.action && p.action !== 'idle' ? ` ${formatNumber(p.powerKw, 0)} kW` : '';
          return (
            <span
              // biome-ignore lint/suspicious/noArrayIndexKey: periods are positional
              key={i}
              className={`tou-lane-item tou-lane-item--${p.action ?? 'none'}`}
              style={{
                left: `${dayPercent(span.start)}%`,
                width: `${dayPercent(span.end) - dayPercent(span.start)}%`,
              }}
              title={p.action ? `${t(`tou.actions.${p.action}`)}${power}` : '—'}
              data-testid={`timeline-action-${i}`}
              data-action={p.action ?? ''}
            >
              <ActionIcon action={p.action} />
              {px(span) >= LANE_TEXT_MIN_PX && (
                <span className="tou-lane-item__text">
                  {p.action ? `${t(`tou.actions.${p.action}`)}${power}` : '—'}
                </span>
              )}
            </span>
          );
        })}
      </div>
      <div className="tou-timeline__axis" aria-hidden="true">
        {HOURS.map((h) => (
          <span
            key={h}
            className={`tou-tick tou-tick--${h % 6 === 0 ? 'major' : 'minor'}`}
            style={{ left: `${(h / 24) * 100}%` }}
          >
            {`${String(h).padStart(2, '0')}:00`}
          </span>
        ))}
      </div>
    </section>
  );
}
