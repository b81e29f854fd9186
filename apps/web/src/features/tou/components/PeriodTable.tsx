/**
 * The periods of a daily plan as a table to type in. Mode `tariff` (/timetariff): start, end
 * (`HH:MM`, typed as is so that "24:00" or a gap gets the spec's message), tier, price
 * (CNY/kWh) and strategy; mode `strategy` (/chargestrategy): times, tier and price shown, and
 * the strategy edited: action, power (kW), SOC floor and ceiling (%). Each field shows its
 * rule issues under it; issues of a field the mode hides are shown in the nearest column.
 * Test hooks (i = period index): `period-table`, `period-row-<i>`, `period-start-<i>`,
 * `period-end-<i>`, `period-tier-<i>`, `period-price-<i>`, `period-action-<i>`,
 * `period-power-<i>`, `period-soc-min-<i>`, `period-soc-max-<i>`, `period-issues-<i>-<field>`.
 */
import { TEXT_LIMITS, TOU_ACTIONS, TOU_TIERS, type TouPeriod } from '@ess/contract';
import { Input, InputNumber, Select, Table, type TableColumnsType, Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import { formatPrice } from '@/shared/format';
import { type IssueIndex, issuesAt, TIER_COLORS } from '../model';
import { FieldIssues } from './Issues';
import { ActionIcon } from './Timeline';

type Field = keyof TouPeriod;
type Row = TouPeriod & { index: number };

interface Props {
  periods: readonly TouPeriod[];
  /** Path of the plan in the document (`['dailyPlans', 2]`), for the issues. */
  planPath: ReadonlyArray<string | number>;
  issues: IssueIndex;
  mode: 'tariff' | 'strategy';
  editable: boolean;
  selected: number | null;
  onSelect: (index: number) => void;
  onChange: (index: number, patch: Partial<TouPeriod>) => void;
}

export function PeriodTable({
  periods,
  planPath,
  issues,
  mode,
  editable,
  selected,
  onSelect,
  onChange,
}: Props) {
  const { t } = useTranslation();
  const at = (i: number, ...fields: Field[]) =>
    fields.flatMap((f) => issuesAt(issues, [...planPath, 'periods', i, f]));
  const show = (i: number, key: string, ...fields: Field[]) => (
    <FieldIssues issues={at(i, ...fields)} testId={`period-issues-${i}-${key}`} />
  );

  const timeInput = (i: number, field: 'start' | 'end') => (
    <>
      <Input
        value={periods[i]![field]}
        maxLength={TEXT_LIMITS.touTime}
        placeholder="HH:MM"
        disabled={!editable}
        status={at(i, field).length ? 'error' : undefined}
        onChange={(e) => onChange(i, { [field]: e.target.value.trim() })}
        className="tou-time-input"
        aria-label={t(`tou.period.${field}`)}
        data-testid={`period-${field}-${i}`}
      />
      {show(i, field, field)}
    </>
  );

  const tierCell = (p: TouPeriod, i: number) =>
    mode === 'tariff' ? (
      <>
        <Select
          value={p.tier ?? undefined}
          allowClear
          disabled={!editable}
          placeholder={t('tou.period.tierPlaceholder')}
          status={at(i, 'tier').length ? 'error' : undefined}
          onChange={(tier) => onChange(i, { tier: tier ?? null })}
          options={TOU_TIERS.map((tier) => ({
            value: tier,
            label: (
              <span className="tou-tier-option">
                <span className="tou-legend__swatch" style={{ background: TIER_COLORS[tier] }} />
                {t(`tou.tiers.${tier}`)}
              </span>
            ),
          }))}
          className="tou-tier-select"
          aria-label={t('tou.period.tier')}
          data-testid={`period-tier-${i}`}
        />
        {show(i, 'tier', 'tier')}
      </>
    ) : (
      <>
        {p.tier ? <Tag color={TIER_COLORS[p.tier]}>{t(`tou.tiers.${p.tier}`)}</Tag> : '—'}
        {show(i, 'tier', 'tier')}
      </>
    );

  const priceCell = (p: TouPeriod, i: number) =>
    mode === 'tariff' ? (
      <>
        <InputNumber
          value={p.priceCnyPerKwh}
          step={0.01}
          disabled={!editable}
          placeholder={t('tou.period.pricePlaceholder')}
          status={at(i, 'priceCnyPerKwh').length ? 'error' : undefined}
          onChange={(v) => onChange(i, { priceCnyPerKwh: typeof v === 'number' ? v : null })}
          className="tou-number-input"
          aria-label={t('tou.period.price')}
          data-testid={`period-price-${i}`}
        />
        {show(i, 'price', 'priceCnyPerKwh')}
      </>
    ) : (
      <>
        {formatPrice(p.priceCnyPerKwh)}
        {show(i, 'price', 'priceCnyPerKwh')}
      </>
    );

  const actionCell = (p: TouPeriod, i: number) => (
    <>
      <Select
        value={p.action ?? undefined}
        allowClear
        disabled={!editable}
        placeholder={t('tou.period.actionPlaceholder')}
        status={at(i, 'action').length ? 'error' : undefined}
        onChange={(action) => onChange(i, { action: action ?? null })}
        options={TOU_ACTIONS.map((action) => ({
          value: action,
          label: (
            <span className={`tou-action tou-action--${action}`}>
              <ActionIcon action={action} /> {t(`tou.actions.${action}`)}
            </span>
          ),
        }))}
        className="tou-action-select"
        aria-label={t('tou.period.action')}
        data-testid={`period-action-${i}`}
      />
      {/* On the tariff screen the power and SOC fields live on the strategy screen. */}
      {mode === 'tariff' ? show(i, 'action', 'action', 'powerKw', 'socMinPct') : show(i, 'action', 'action')}
    </>
  );

  const numberCell = (p: TouPeriod, i: number, field: 'powerKw' | 'socMinPct' | 'socMaxPct', key: string) => (
    <>
      <InputNumber
        value={p[field]}
        min={0}
        max={field === 'powerKw' ? 100_000 : 100}
        disabled={!editable || p.action === 'idle'}
        status={at(i, field).length ? 'error' : undefined}
        onChange={(v) => onChange(i, { [field]: typeof v === 'number' ? v : 0 })}
        className="tou-number-input"
        aria-label={t(`tou.period.${key === 'power' ? 'power' : key === 'soc-min' ? 'socMin' : 'socMax'}`)}
        data-testid={`period-${key}-${i}`}
      />
      {show(i, key, field)}
    </>
  );

  const columns: TableColumnsType<Row> = [
    { key: 'index', title: t('tou.period.index'), width: 40, render: (_, __, i) => i + 1 },
    ...(mode === 'tariff'
      ? [
          {
            key: 'start',
            title: t('tou.period.start'),
            width: 96,
            render: (_: unknown, __: TouPeriod, i: number) => timeInput(i, 'start'),
          },
          {
            key: 'end',
            title: t('tou.period.end'),
            width: 96,
            render: (_: unknown, __: TouPeriod, i: number) => timeInput(i, 'end'),
          },
        ]
      : [
          {
            key: 'time',
            title: `${t('tou.period.start')}–${t('tou.period.end')}`,
            width: 120,
            render: (_: unknown, p: TouPeriod, i: number) => (
              <>
                <span className="tou-mono">
                  {p.start}–{p.end}
                </span>
                {show(i, 'time', 'start', 'end')}
              </>
            ),
          },
        ]),
    {
      key: 'tier',
      title: t('tou.period.tier'),
      width: mode === 'tariff' ? 130 : 90,
      render: (_, p, i) => tierCell(p, i),
    },
    {
      key: 'price',
      title: t('tou.period.price'),
      width: mode === 'tariff' ? 130 : 100,
      render: (_, p, i) => priceCell(p, i),
    },
    { key: 'action', title: t('tou.period.action'), width: 140, render: (_, p, i) => actionCell(p, i) },
    ...(mode === 'strategy'
      ? [
          {
            key: 'power',
            title: t('tou.period.power'),
            width: 110,
            render: (_: unknown, p: TouPeriod, i: number) => numberCell(p, i, 'powerKw', 'power'),
          },
          {
            key: 'socMin',
            title: t('tou.period.socMin'),
            width: 110,
            render: (_: unknown, p: TouPeriod, i: number) => numberCell(p, i, 'socMinPct', 'soc-min'),
          },
          {
            key: 'socMax',
            title: t('tou.period.socMax'),
            width: 110,
            render: (_: unknown, p: TouPeriod, i: number) => numberCell(p, i, 'socMaxPct', 'soc-max'),
          },
        ]
      : []),
  ];

  return (
    <Table<Row>
      className="tou-period-table"
      size="small"
      columns={columns}
      dataSource={periods.map((p, index) => ({ ...p, index }))}
      rowKey="index"
      pagination={false}
      scroll={{ x: 'max-content' }}
      rowClassName={(row) => (row.index === selected ? 'tou-row--selected' : '')}
      onRow={(row) =>
        ({ onClick: () => onSelect(row.index), 'data-testid': `period-row-${row.index}` }) as object
      }
      data-testid="period-table"
    />
  );
}
