/**
 * A bill as xlsx (exceljs, like modules/export): one sheet with the head (project, month, version,
 * state, totals), the lines (site, meter, dates, tier, readings, multiplier, kWh, price, amounts,
 * source), the demand lines (per site × segment: share of month, maximum demand without and with
 * storage in kW or "not measured", the basic charge each way, the change), the totals with the
 * demand charge change, and the split, in zh or en. Amounts in CNY with two decimals.
 */
import {
  BILL_STATE_LABELS,
  BILL_TIER_LABELS,
  type BillDetail,
  billDeviceLabel,
  type Lang,
  PROJECT_INCOME_MODE_LABELS,
} from '@ess/contract';
import ExcelJS from 'exceljs';

const T = {
  title: { zh: '电费结算单', en: 'Monthly electricity bill' },
  project: { zh: '项目', en: 'Project' },
  month: { zh: '月份', en: 'Month' },
  version: { zh: '版本', en: 'Version' },
  state: { zh: '状态', en: 'State' },
  mode: { zh: '收益模式', en: 'Income mode' },
  reason: { zh: '更正原因', en: 'Correction reason' },
  lines: { zh: '明细', en: 'Lines' },
  site: { zh: '站点', en: 'Site' },
  meter: { zh: '计量设备', en: 'Metering device' },
  period: { zh: '日期', en: 'Dates' },
  tier: { zh: '时段', en: 'Tier' },
  impStart: { zh: '正向起码', en: 'Import start' },
  impEnd: { zh: '正向止码', en: 'Import end' },
  expStart: { zh: '反向起码', en: 'Export start' },
  expEnd: { zh: '反向止码', en: 'Export end' },
  multiplier: { zh: '倍率', en: 'Multiplier' },
  charged: { zh: '充电量(kWh)', en: 'Charged (kWh)' },
  discharged: { zh: '放电量(kWh)', en: 'Discharged (kWh)' },
  price: { zh: '电价(元/kWh)', en: 'Price (CNY/kWh)' },
  cost: { zh: '充电成本(元)', en: 'Cost (CNY)' },
  value: { zh: '放电收益(元)', en: 'Value (CNY)' },
  source: { zh: '来源', en: 'Source' },
  register: { zh: '电表读数', en: 'Registers' },
  rollup: { zh: '功率估算', en: 'Rollups' },
  totals: { zh: '合计', en: 'Totals' },
  demand: { zh: '需量电费变化(元)', en: 'Demand charge change (CNY)' },
  demandTitle: { zh: '需量电费变化（两部制）', en: 'Demand charge change (two-part tariff)' },
  fraction: { zh: '计费比例', en: 'Share of month' },
  baselineKw: { zh: '无储能最大需量(kW)', en: 'Max demand without storage (kW)' },
  measuredKw: { zh: '实际最大需量(kW)', en: 'Max demand (kW)' },
  notMeasured: { zh: '未计量', en: 'Not measured' },
  baselineCny: { zh: '无储能基本电费(元)', en: 'Basic charge without storage (CNY)' },
  measuredCny: { zh: '实际基本电费(元)', en: 'Basic charge (CNY)' },
  change: { zh: '变化(元)', en: 'Change (CNY)' },
  net: { zh: '净收益(元)', en: 'Net benefit (CNY)' },
  split: { zh: '分配', en: 'Split' },
  party: { zh: '参与方', en: 'Party' },
  owner: { zh: '业主', en: 'Owner' },
  ratio: { zh: '比例(%)', en: 'Ratio (%)' },
  benefit: { zh: '收益分成(元)', en: 'Benefit share (CNY)' },
  rent: { zh: '租金(元)', en: 'Rent (CNY)' },
  maintenance: { zh: '运维费(元)', en: 'Maintenance (CNY)' },
  insurance: { zh: '保险费(元)', en: 'Premium (CNY)' },
  payable: { zh: '应得(元)', en: 'Payable (CNY)' },
} as const;

/** The xlsx bytes of `b` in `lang`. */
export async function billXlsx(b: BillDetail, lang: Lang): Promise<Buffer> {
  const t = (k: keyof typeof T) => T[k][lang];
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet(t('title'));
  const d = b.document;
  ws.addRow([t('title')]).font = { bold: true, size: 14 };
  ws.addRow([t('project'), b.projectName]);
  ws.addRow([t('month'), b.month]);
  ws.addRow([t('version'), b.version]);
  ws.addRow([t('state'), BILL_STATE_LABELS[b.state][lang]]);
  ws.addRow([t('mode'), PROJECT_INCOME_MODE_LABELS[b.incomeMode][lang]]);
  if (b.reason) ws.addRow([t('reason'), b.reason]);
  ws.addRow([]);
  ws.addRow([t('lines')]).font = { bold: true };
  ws.addRow(
    [
      'site',
      'meter',
      'period',
      'tier',
      'impStart',
      'impEnd',
      'expStart',
      'expEnd',
      'multiplier',
      'charged',
      'discharged',
      'price',
      'cost',
      'value',
      'source',
    ].map((k) => t(k as keyof typeof T)),
  ).font = { bold: true };
  for (const l of d.lines) {
    ws.addRow([
      b.siteNames[String(l.siteId)] ?? l.siteId,
      `${l.meterSn} (${billDeviceLabel(l.deviceType, lang)})`,
      `${l.from} – ${l.to}`,
      BILL_TIER_LABELS[l.tier][lang],
      l.importStartKwh,
      l.importEndKwh,
      l.exportStartKwh,
      l.exportEndKwh,
      l.multiplier,
      l.chargedKwh,
      l.dischargedKwh,
      l.priceCnyPerKwh,
      l.costCny,
      l.valueCny,
      t(l.chargedSource === 'rollup' || l.dischargedSource === 'rollup' ? 'rollup' : 'register'),
    ]);
  }
  if (d.demand.length > 0) {
    ws.addRow([]);
    ws.addRow([t('demandTitle')]).font = { bold: true };
    ws.addRow(
      ['site', 'period', 'fraction', 'baselineKw', 'measuredKw', 'baselineCny', 'measuredCny', 'change'].map(
        (k) => t(k as keyof typeof T),
      ),
    ).font = { bold: true };
    const kw = (v: number | null) => v ?? t('notMeasured');
    for (const x of d.demand) {
      ws.addRow([
        b.siteNames[String(x.siteId)] ?? x.siteId,
        `${x.from} – ${x.to}`,
        Math.round(x.monthFraction * 10_000) / 10_000,
        kw(x.baselineKw),
        kw(x.measuredKw),
        x.baselineCny,
        x.measuredCny,
        x.changeCny,
      ]);
    }
  }
  ws.addRow([]);
  ws.addRow([t('totals')]).font = { bold: true };
  ws.addRow([t('charged'), d.totals.chargedKwh, t('discharged'), d.totals.dischargedKwh]);
  ws.addRow([t('cost'), d.totals.costCny, t('value'), d.totals.valueCny]);
  ws.addRow([t('demand'), d.totals.demandChangeCny, t('net'), d.totals.netBenefitCny]);
  ws.addRow([]);
  ws.addRow([t('split')]).font = { bold: true };
  ws.addRow(
    ['party', 'ratio', 'benefit', 'rent', 'maintenance', 'insurance', 'payable'].map((k) =>
      t(k as keyof typeof T),
    ),
  ).font = {
    bold: true,
  };
  for (const p of d.parties) {
    ws.addRow([
      p.role === 'owner' ? `${t('owner')}${p.name ? ` ${p.name}` : ''}` : p.name,
      p.ratioPct,
      p.benefitCny,
      p.rentCny,
      p.maintenanceCny,
      p.insuranceCny,
      p.payableCny,
    ]);
  }
  for (const col of [13, 14]) ws.getColumn(col).numFmt = '0.00';
  ws.columns.forEach((c) => {
    c.width = 14;
  });
  return Buffer.from(await wb.xlsx.writeBuffer());
}
