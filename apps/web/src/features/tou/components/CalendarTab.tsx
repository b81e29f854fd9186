/**
 * The plan calendar: a month view where each day shows the daily plan that runs that day and
 * why (exception > yearly setting > weekly cycle > default daily plan), coloured by source,
 * from the contract's `resolveDay` over the working copy. On narrow screens the days show a
 * coloured dot and the chosen day is described under the calendar.
 * Test hooks: `tou-calendar`, `calendar-day-<YYYY-MM-DD>` (with `data-source`), `calendar-selected`.
 */
import { type ResolutionSource, resolveDay, type TouSchemeDocument } from '@ess/contract';
import { Calendar, Grid } from 'antd';
import type { Dayjs } from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { dayjs } from '@/shared/i18n/dayjs';
import { SOURCE_COLORS } from '../model';

const SOURCES: ResolutionSource[] = ['exception', 'yearly', 'weekly', 'default'];

export function CalendarTab({ doc }: { doc: TouSchemeDocument }) {
  const { t } = useTranslation();
  const screens = Grid.useBreakpoint();
  const wide = screens.md !== false;
  const [value, setValue] = useState<Dayjs>(() => dayjs());
  if (doc.dailyPlans.length === 0) return null;

  const selected = resolveDay(doc, value.format('YYYY-MM-DD'));

  return (
    <div className="tou-tab" data-testid="tou-calendar">
      <p className="tou-muted">{t('tou.calendar.hint')}</p>
      <ul className="tou-legend">
        {SOURCES.map((s) => (
          <li key={s}>
            <span
              className="tou-legend__swatch"
              style={{ background: SOURCE_COLORS[s] }}
              aria-hidden="true"
            />
            {t(`tou.sources.${s}`)}
          </li>
        ))}
      </ul>
      <Calendar
        fullscreen={wide}
        value={value}
        onChange={setValue}
        cellRender={(current, info) => {
          if (info.type !== 'date') return info.originNode;
          const date = current.format('YYYY-MM-DD');
          const day = resolveDay(doc, date);
          const color = SOURCE_COLORS[day.source];
          return wide ? (
            <div
              className="tou-calendar-day"
              style={{ borderLeftColor: color }}
              data-testid={`calendar-day-${date}`}
              data-source={day.source}
            >
              <span className="tou-calendar-day__plan">{day.dailyPlan.name}</span>
              <span className="tou-calendar-day__source" style={{ color }}>
                {t(`tou.sources.${day.source}`)}
              </span>
            </div>
          ) : (
            <span
              className="tou-calendar-dot"
              style={{ background: color }}
              title={`${day.dailyPlan.name} (${t(`tou.sources.${day.source}`)})`}
              data-testid={`calendar-day-${date}`}
              data-source={day.source}
            />
          );
        }}
      />
      <p className="tou-calendar-selected" data-testid="calendar-selected">
        <span
          className="tou-legend__swatch"
          style={{ background: SOURCE_COLORS[selected.source] }}
          aria-hidden="true"
        />
        {t('tou.calendar.selected', {
          date: selected.date,
          plan: selected.dailyPlan.name,
          source: t(`tou.sources.${selected.source}`),
        })}
      </p>
    </div>
  );
}
