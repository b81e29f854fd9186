/**
 * The parts of a bill shown in the drawer (BillDrawer.tsx): the lines — meter × date segment ×
 * tier, each with its registers, multiplier (CT × PT), kWh, price, amounts and source — with the
 * ToU periods summed into each line under it, so every figure can be checked against the meter
 * readings: a period's kWh = (end register − start register) × multiplier; the line's kWh = Σ of
 * its periods; cost = charged kWh × price, value = discharged kWh × price (to the fen). Then the
 * two-part demand charge change and the split per owner / investor.
 * Test hooks: `bill-lines` (rows `data-row-key` = line index), `bill-line-check-<i>` (`data-agrees`),
 * `bill-periods-<i>`, `bill-demand`, `bill-parties`.
 */
import {
  BILL_TIER_LABELS,
  type BillDetail,
  type BillLine,
  type BillPeriodEnergy,
  billDeviceLabel,
  type Lang,
} from '@ess/contract';
import { Table, type TableColumnsType, Tag, Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import { formatCny, formatDayTime, formatKwh, formatNumber, formatPrice, formatTime } from '@/shared/format';
import { checkLine, dateRange, demandKwText, isRollupLine, periodRegisterKwh } from '../model';

type Row = BillLine & { index: number };

/** Source tag of a line: registers, or rollups (with why), or a backwards register. */
export function SourceTag({ line }: { line: BillLine }) {
  const { t } = useTranslation();
  if (line.problem === 'reading_backwards') {
    return (
      <Tooltip title={t('bill.source.backwardsHint')}>
        <Tag color="red">{t('bill.source.backwards')}</Tag>
      </Tooltip>
    );
  }
  if (isRollupLine(line)) {
    return (
      <Tooltip title={t('bill.source.rollupHint')}>
        <Tag color="orange">{t('bill.source.rollup')}</Tag>
      </Tooltip>
    );
  }
  return (
    <Tooltip title={t('bill.source.registerHint')}>
      <Tag color="green">{t('bill.source.register')}</Tag>
    </Tooltip>
  );
}

/** The periods of one line: bounds in the site's zone, registers, multiplier, kWh each way. */
function Periods({ line, zone, index, lang }: { line: BillLine; zone: string; index: number; lang: Lang }) {
  const { t } = useTranslation();
  const periods = line.periods ?? [];
  const kwh = (p: BillPeriodEnergy, way: 'charge' | 'discharge') => {
    const start = way === 'charge' ? p.chargeStart : p.dischargeStart;
    const end = way === 'charge' ? p.chargeEnd : p.dischargeEnd;
    const stored = way === 'charge' ? p.chargedKwh : p.dischargedKwh;
    const fromRegisters = p.source === 'registers' ? periodRegisterKwh(start, end, line.multiplier) : null;
    return (
      <span className="bill-stack">
        <span className="bill-num">
          {formatKwh(start, lang)} → {formatKwh(end, lang)}
        </span>
        <span className="bill-muted bill-num">
          {fromRegisters !== null
            ? `(${formatKwh(end, lang)} − ${formatKwh(start, lang)}) × ${formatNumber(line.multiplier, 3)} = ${formatKwh(stored, lang)} kWh`
            : `${formatKwh(stored, lang)} kWh (${t('bill.source.rollup')})`}
        </span>
      </span>
    );
  };
  const columns: TableColumnsType<BillPeriodEnergy> = [
    {
      key: 'time',
      title: t('bill.period.time'),
      render: (_, p) => (
        <span className="bill-nowrap">
          {formatDayTime(p.startMs, zone)} – {formatTime(p.endMs, zone, false)}
        </span>
      ),
    },
    { key: 'charge', title: t('bill.period.charge'), render: (_, p) => kwh(p, 'charge') },
    { key: 'discharge', title: t('bill.period.discharge'), render: (_, p) => kwh(p, 'discharge') },
    {
      key: 'source',
      title: t('bill.field.source'),
      render: (_, p) =>
        p.source === 'power' ? (
          <Tag color="orange">{t('bill.source.rollup')}</Tag>
        ) : (
          <Tag color="green">{t('bill.source.register')}</Tag>
        ),
    },
  ];
  if (periods.length === 0) {
    return (
      <div className="bill-muted" data-testid={`bill-periods-${index}`}>
        {line.importStartKwh !== null
          ? t('bill.period.fromReadings', {
              imp: `(${formatKwh(line.importEndKwh, lang)} − ${formatKwh(line.importStartKwh, lang)}) × ${formatNumber(line.multiplier, 3)}`,
              exp: `(${formatKwh(line.exportEndKwh, lang)} − ${formatKwh(line.exportStartKwh, lang)}) × ${formatNumber(line.multiplier, 3)}`,
            })
          : t('bill.period.none')}
      </div>
    );
  }
  return (
    <div data-testid={`bill-periods-${index}`}>
      <Table<BillPeriodEnergy>
        size="small"
        rowKey={(p) => String(p.startMs)}
        columns={columns}
        dataSource={periods}
        pagination={periods.length > 20 ? { pageSize: 20, size: 'small', showSizeChanger: false } : false}
        scroll={{ x: 'max-content' }}
      />
    </div>
  );
}

/** The lines table, each line expandable into its periods. */
export function LinesTable({ bill, lang }: { bill: BillDetail; lang: Lang }) {
  const { t } = useTranslation();
  const doc = bill.document;
  const zoneOf = (siteId: number) => doc.sites.find((s) => s.siteId === siteId)?.timeZone ?? 'UTC';
  const rows: Row[] = doc.lines.map((l, index) => ({ ...l, index }));
  /** The registers read at the line's bounds, or the count of periods to expand. */
  const registers = (l: BillLine) => {
    if (l.importStartKwh === null && l.exportStartKwh === null) {
      const n = l.periods?.length ?? 0;
      return <span className="bill-muted bill-nowrap">{t('bill.period.count', { count: n })}</span>;
    }
    return (
      <span className="bill-stack bill-num">
        <span>
          {t('bill.period.chargeShort')} {formatKwh(l.importStartKwh, lang)} →{' '}
          {formatKwh(l.importEndKwh, lang)}
        </span>
        <span>
          {t('bill.period.dischargeShort')} {formatKwh(l.exportStartKwh, lang)} →{' '}
          {formatKwh(l.exportEndKwh, lang)}
        </span>
      </span>
    );
  };
  const columns: TableColumnsType<Row> = [
    {
      key: 'meter',
      title: t('bill.field.meter'),
      render: (_, l) => (
        <span className="bill-stack">
          <span className="bill-nowrap">{bill.siteNames[String(l.siteId)] ?? l.siteId}</span>
          <span className="bill-muted bill-mono">{l.meterSn}</span>
          <span className="bill-muted" data-testid="bill-line-device">
            {billDeviceLabel(l.deviceType, lang)}
          </span>
        </span>
      ),
    },
    {
      key: 'dates',
      title: t('bill.field.dates'),
      render: (_, l) => <span className="bill-nowrap">{dateRange(l.from, l.to)}</span>,
    },
    { key: 'tier', title: t('bill.field.tier'), render: (_, l) => BILL_TIER_LABELS[l.tier][lang] },
    { key: 'registers', title: t('bill.field.registers'), render: (_, l) => registers(l) },
    {
      key: 'mult',
      title: t('bill.field.multiplier'),
      align: 'right',
      render: (_, l) => <span className="bill-num">×{formatNumber(l.multiplier, 3)}</span>,
    },
    {
      key: 'charged',
      title: t('bill.field.chargedKwh'),
      align: 'right',
      render: (_, l) => <span className="bill-num">{formatKwh(l.chargedKwh, lang)}</span>,
    },
    {
      key: 'discharged',
      title: t('bill.field.dischargedKwh'),
      align: 'right',
      render: (_, l) => <span className="bill-num">{formatKwh(l.dischargedKwh, lang)}</span>,
    },
    {
      key: 'price',
      title: t('bill.field.price'),
      align: 'right',
      render: (_, l) => <span className="bill-num">{formatPrice(l.priceCnyPerKwh, lang)}</span>,
    },
    {
      key: 'cost',
      title: t('bill.field.costCny'),
      align: 'right',
      render: (_, l) => <span className="bill-num">{formatCny(l.costCny, lang)}</span>,
    },
    {
      key: 'value',
      title: t('bill.field.valueCny'),
      align: 'right',
      render: (_, l) => <span className="bill-num">{formatCny(l.valueCny, lang)}</span>,
    },
    { key: 'source', title: t('bill.field.source'), render: (_, l) => <SourceTag line={l} /> },
    {
      key: 'check',
      title: t('bill.field.check'),
      render: (_, l) => {
        const c = checkLine(l);
        return (
          <Tooltip
            title={t('bill.checkHint', {
              charged: formatKwh(c.chargedKwh, lang),
              discharged: formatKwh(c.dischargedKwh, lang),
            })}
          >
            <Tag
              color={c.agrees ? 'green' : 'red'}
              data-testid={`bill-line-check-${l.index}`}
              data-agrees={String(c.agrees)}
            >
              {c.agrees ? t('bill.checkOk') : t('bill.checkDiffers')}
            </Tag>
          </Tooltip>
        );
      },
    },
  ];
  return (
    <Table<Row>
      size="small"
      rowKey="index"
      columns={columns}
      dataSource={rows}
      pagination={false}
      scroll={{ x: 'max-content' }}
      locale={{ emptyText: t('bill.noLines') }}
      expandable={{
        expandedRowRender: (l) => <Periods line={l} zone={zoneOf(l.siteId)} index={l.index} lang={lang} />,
        expandIcon: undefined,
      }}
      summary={() =>
        rows.length === 0 ? null : (
          <Table.Summary.Row className="bill-sum-row">
            <Table.Summary.Cell index={0} colSpan={6}>
              {t('bill.sum')}
            </Table.Summary.Cell>
            <Table.Summary.Cell index={6} align="right">
              <span className="bill-num">{formatKwh(doc.totals.chargedKwh, lang)}</span>
            </Table.Summary.Cell>
            <Table.Summary.Cell index={7} align="right">
              <span className="bill-num">{formatKwh(doc.totals.dischargedKwh, lang)}</span>
            </Table.Summary.Cell>
            <Table.Summary.Cell index={8} />
            <Table.Summary.Cell index={9} align="right">
              <span className="bill-num">{formatCny(doc.totals.costCny, lang)}</span>
            </Table.Summary.Cell>
            <Table.Summary.Cell index={10} align="right">
              <span className="bill-num">{formatCny(doc.totals.valueCny, lang)}</span>
            </Table.Summary.Cell>
            <Table.Summary.Cell index={11} colSpan={2} />
          </Table.Summary.Row>
        )
      }
      data-testid="bill-lines"
    />
  );
}

/** The two-part charge per site × segment: with and without storage, and the change. */
export function DemandTable({ bill, lang }: { bill: BillDetail; lang: Lang }) {
  const { t } = useTranslation();
  const rows = bill.document.demand.map((d, i) => ({ ...d, i }));
  const columns: TableColumnsType<(typeof rows)[number]> = [
    {
      key: 'site',
      title: t('bill.field.site'),
      render: (_, d) => bill.siteNames[String(d.siteId)] ?? d.siteId,
    },
    { key: 'dates', title: t('bill.field.dates'), render: (_, d) => dateRange(d.from, d.to) },
    {
      key: 'fraction',
      title: t('bill.demand.fraction'),
      align: 'right',
      render: (_, d) => formatKwh(d.monthFraction, lang),
    },
    {
      key: 'baselineKw',
      title: t('bill.demand.baselineKw'),
      render: (_, d) => demandKwText(t, d.baselineKw),
    },
    {
      key: 'measuredKw',
      title: t('bill.demand.measuredKw'),
      render: (_, d) => demandKwText(t, d.measuredKw),
    },
    {
      key: 'baseline',
      title: t('bill.demand.baselineCny'),
      align: 'right',
      render: (_, d) => formatCny(d.baselineCny, lang),
    },
    {
      key: 'measured',
      title: t('bill.demand.measuredCny'),
      align: 'right',
      render: (_, d) => formatCny(d.measuredCny, lang),
    },
    {
      key: 'change',
      title: t('bill.demand.changeCny'),
      align: 'right',
      render: (_, d) => <strong className="bill-num">{formatCny(d.changeCny, lang)}</strong>,
    },
  ];
  return (
    <div data-testid="bill-demand">
      {rows.length === 0 ? (
        <p className="bill-muted">{t('bill.demand.none')}</p>
      ) : (
        <Table
          size="small"
          rowKey="i"
          columns={columns}
          dataSource={rows}
          pagination={false}
          scroll={{ x: 'max-content' }}
        />
      )}
      <p className="bill-muted">{t('bill.demand.note')}</p>
    </div>
  );
}

/** The split: owner and each investor (self-investment) or rent (leasing), with the costs borne. */
export function PartiesTable({ bill, lang }: { bill: BillDetail; lang: Lang }) {
  const { t } = useTranslation();
  const doc = bill.document;
  const rows = doc.parties.map((p, i) => ({ ...p, i }));
  const leasing = doc.incomeMode === 'leasing';
  const columns: TableColumnsType<(typeof rows)[number]> = [
    {
      key: 'party',
      title: t('bill.party.party'),
      render: (_, p) => (
        <span className="bill-stack">
          <span>{p.name ?? t('bill.party.unnamedOwner')}</span>
          <span className="bill-muted">
            {p.role === 'owner' ? t('bill.party.owner') : t('bill.party.investor')}
          </span>
        </span>
      ),
    },
    {
      key: 'ratio',
      title: t('bill.party.ratio'),
      align: 'right',
      render: (_, p) => `${formatKwh(p.ratioPct, lang)} %`,
    },
    {
      key: 'benefit',
      title: t('bill.party.benefit'),
      align: 'right',
      render: (_, p) => formatCny(p.benefitCny, lang),
    },
    ...(leasing
      ? [
          {
            key: 'rent',
            title: t('bill.party.rent'),
            align: 'right' as const,
            render: (_: unknown, p: (typeof rows)[number]) => formatCny(p.rentCny, lang),
          },
        ]
      : []),
    {
      key: 'maintenance',
      title: t('bill.party.maintenance'),
      align: 'right',
      render: (_, p) => formatCny(p.maintenanceCny, lang),
    },
    {
      key: 'insurance',
      title: t('bill.party.insurance'),
      align: 'right',
      render: (_, p) => formatCny(p.insuranceCny, lang),
    },
    {
      key: 'payable',
      title: t('bill.party.payable'),
      align: 'right',
      render: (_, p) => (
        <strong className="bill-num" data-testid={`bill-payable-${p.i}`}>
          {formatCny(p.payableCny, lang)}
        </strong>
      ),
    },
  ];
  return (
    <div data-testid="bill-parties">
      <Table
        size="small"
        rowKey="i"
        columns={columns}
        dataSource={rows}
        pagination={false}
        scroll={{ x: 'max-content' }}
        summary={() => (
          <Table.Summary.Row className="bill-sum-row">
            <Table.Summary.Cell index={0} colSpan={columns.length - 1}>
              {t('bill.party.sum')}
            </Table.Summary.Cell>
            <Table.Summary.Cell index={columns.length - 1} align="right">
              <strong className="bill-num">{formatCny(doc.totals.distributedCny, lang)}</strong>
            </Table.Summary.Cell>
          </Table.Summary.Row>
        )}
      />
      <p className="bill-muted">{leasing ? t('bill.party.leasingRule') : t('bill.party.selfRule')}</p>
    </div>
  );
}
