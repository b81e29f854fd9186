/**
 * The printable bill `/project/bill/print?id=N` (issue 17 item 5: "a printable page (A4, zh/en)
 * that an owner would sign"): outside the frame (app/router.tsx), opened in a tab of its own from
 * the list or the detail. One A4 portrait sheet per page (CSS `@page` and `@media print` in
 * bill.css: the toolbar hidden, tables kept whole per row, the head repeated on each page): the
 * head (project, company, month with each site's zone and hours, version, state, income mode),
 * the lines (meter, dates, tier, registers, multiplier, kWh, price, amounts, source), the demand
 * charge change (maximum demand without and with storage, kW, or "not measured"; the basic charge
 * each way and the change), the totals, the split per owner / investor with maintenance and
 * premium, how the figures are made, and signature lines for the owner, each investor and the
 * operator; who drafted and who settled it, by name. A draft
 * carries a "draft — not settled" mark. Language: the UI language, switchable on the page.
 * Test hooks: `bill-print`, `bill-print-sheet` (`data-state`), `bill-print-button`,
 * `bill-print-lang`, `bill-print-line-<i>`, `bill-print-net`, `bill-print-signatures`
 * (one `bill-print-sign` per party).
 */
import { PrinterOutlined } from '@ant-design/icons';
import { BILL_TIER_LABELS, billDeviceLabel, type Lang, PROJECT_INCOME_MODE_LABELS } from '@ess/contract';
import { useQuery } from '@tanstack/react-query';
import { Button, Result, Segmented, Spin } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { formatCny, formatDateTime, formatKwh, formatNumber, formatPrice } from '@/shared/format';
import { changeLang, currentLang } from '@/shared/i18n';
import { billKeys, fetchBill } from '../api';
import { billStateLabel, dateRange, demandKwText, isRollupLine, lastDay } from '../model';
import '../bill.css';

export default function BillPrintPage() {
  const { t, i18n } = useTranslation();
  const lang = currentLang();
  const [params] = useSearchParams();
  const id = Number(params.get('id'));
  const valid = Number.isInteger(id) && id > 0;
  const query = useQuery({ queryKey: billKeys.detail(id), queryFn: () => fetchBill(id), enabled: valid });
  const bill = query.data;

  // biome-ignore lint/correctness/useExhaustiveDependencies: the title follows the language
  useEffect(() => {
    if (bill)
      document.title = `${t('bill.printPage.title')} ${bill.projectName} ${bill.month} v${bill.version}`;
  }, [bill, i18n.language]);

  if (!valid || query.isError) {
    return <Result status="warning" title={t('bill.printPage.notFound')} data-testid="bill-print" />;
  }
  if (!bill) {
    return (
      <div className="bill-print bill-print--loading" data-testid="bill-print">
        <Spin />
      </div>
    );
  }
  const doc = bill.document;
  const siteName = (siteId: number) => bill.siteNames[String(siteId)] ?? String(siteId);
  const leasing = doc.incomeMode === 'leasing';
  const sourceText = (l: (typeof doc.lines)[number]) =>
    l.problem === 'reading_backwards'
      ? t('bill.source.backwards')
      : isRollupLine(l)
        ? t('bill.source.rollup')
        : t('bill.source.register');
  const registers = (l: (typeof doc.lines)[number]) =>
    l.importStartKwh === null && l.exportStartKwh === null ? (
      t('bill.period.count', { count: l.periods?.length ?? 0 })
    ) : (
      <>
        {t('bill.period.chargeShort')} {formatKwh(l.importStartKwh, lang)} → {formatKwh(l.importEndKwh, lang)}
        <br />
        {t('bill.period.dischargeShort')} {formatKwh(l.exportStartKwh, lang)} →{' '}
        {formatKwh(l.exportEndKwh, lang)}
      </>
    );
  const metersOf = (siteId: number) => [
    ...new Set(doc.lines.filter((l) => l.siteId === siteId).map((l) => l.meterSn)),
  ];

  return (
    <div className="bill-print" data-testid="bill-print">
      <div className="bill-print__toolbar">
        <Button
          type="primary"
          icon={<PrinterOutlined />}
          onClick={() => window.print()}
          data-testid="bill-print-button"
        >
          {t('bill.printPage.print')}
        </Button>
        <Segmented<Lang>
          value={lang}
          onChange={(v) => void changeLang(v)}
          options={[
            { value: 'zh', label: '中文' },
            { value: 'en', label: 'English' },
          ]}
          data-testid="bill-print-lang"
        />
        <span className="bill-muted">{t('bill.printPage.hint')}</span>
      </div>
      <article className="bill-print__sheet" data-testid="bill-print-sheet" data-state={bill.state}>
        {bill.state === 'draft' && <div className="bill-print__mark">{t('bill.printPage.draftMark')}</div>}
        <header className="bill-print__head">
          <h1>{t('bill.printPage.title')}</h1>
          <div className="bill-print__sub">
            {bill.projectName} · {bill.month} · {t('bill.versionN', { version: bill.version })} ·{' '}
            {billStateLabel(bill.state, lang)}
          </div>
        </header>
        <table className="bill-print__kv">
          <tbody>
            <tr>
              <th>{t('bill.field.project')}</th>
              <td>{bill.projectName}</td>
              <th>{t('bill.printPage.operator')}</th>
              <td>{bill.companyName}</td>
            </tr>
            <tr>
              <th>{t('bill.field.month')}</th>
              <td>{bill.month}</td>
              <th>{t('bill.field.mode')}</th>
              <td>{PROJECT_INCOME_MODE_LABELS[bill.incomeMode][lang]}</td>
            </tr>
            <tr>
              <th>{t('bill.printPage.sites')}</th>
              <td colSpan={3}>
                {doc.sites.map((s) => (
                  <div key={s.siteId}>
                    {t('bill.siteHours', {
                      site: s.siteName,
                      zone: s.timeZone,
                      hours: formatNumber(s.monthHours, 3),
                      billed: formatNumber(s.billedHours, 3),
                    })}
                    {metersOf(s.siteId).length > 0 && (
                      <span className="bill-print__device">
                        {' '}
                        · {t('bill.printPage.meters', { meters: metersOf(s.siteId).join(', ') })}
                      </span>
                    )}
                  </div>
                ))}
              </td>
            </tr>
            <tr>
              <th>{t('bill.field.drafted')}</th>
              <td>
                {formatDateTime(bill.createdAt)} {bill.createdBy ?? t('bill.byTask')}
              </td>
              <th>{t('bill.field.settled')}</th>
              <td>
                {bill.confirmedAt === null
                  ? '—'
                  : `${formatDateTime(bill.confirmedAt)} ${bill.confirmedBy ?? ''}`}
              </td>
            </tr>
            {bill.reason && (
              <tr>
                <th>{t('bill.field.reason')}</th>
                <td colSpan={3}>{bill.reason}</td>
              </tr>
            )}
          </tbody>
        </table>

        <h2>{t('bill.lines')}</h2>
        <table className="bill-print__table">
          <thead>
            <tr>
              <th>{t('bill.printPage.meter')}</th>
              <th>{t('bill.field.dates')}</th>
              <th>{t('bill.field.tier')}</th>
              <th>{t('bill.field.registers')}</th>
              <th className="num">{t('bill.field.multiplier')}</th>
              <th className="num">{t('bill.field.chargedKwh')}</th>
              <th className="num">{t('bill.field.dischargedKwh')}</th>
              <th className="num">{t('bill.field.price')}</th>
              <th className="num">{t('bill.field.costCny')}</th>
              <th className="num">{t('bill.field.valueCny')}</th>
              <th>{t('bill.field.source')}</th>
            </tr>
          </thead>
          <tbody>
            {doc.lines.length === 0 && (
              <tr>
                <td colSpan={11}>{t('bill.noLines')}</td>
              </tr>
            )}
            {doc.lines.map((l, i) => (
              <tr
                key={`${l.meterId}-${l.startMs}-${l.from}-${l.tier}-${l.priceCnyPerKwh}`}
                data-testid={`bill-print-line-${i}`}
              >
                <td>
                  <span className="mono">{l.meterSn}</span>
                  <br />
                  <span className="bill-print__device">{billDeviceLabel(l.deviceType, lang)}</span>
                </td>
                <td className="nowrap">
                  {l.from === lastDay(l.to) ? (
                    l.from
                  ) : (
                    <>
                      {l.from}
                      <br />– {lastDay(l.to)}
                    </>
                  )}
                </td>
                <td className="nowrap">{BILL_TIER_LABELS[l.tier][lang]}</td>
                <td className="nowrap">{registers(l)}</td>
                <td className="num">×{formatNumber(l.multiplier, 3)}</td>
                <td className="num">{formatKwh(l.chargedKwh, lang)}</td>
                <td className="num">{formatKwh(l.dischargedKwh, lang)}</td>
                <td className="num">{formatPrice(l.priceCnyPerKwh, lang)}</td>
                <td className="num">{formatCny(l.costCny, lang)}</td>
                <td className="num">{formatCny(l.valueCny, lang)}</td>
                <td className="nowrap">{sourceText(l)}</td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <td colSpan={5}>{t('bill.sum')}</td>
              <td className="num">{formatKwh(doc.totals.chargedKwh, lang)}</td>
              <td className="num">{formatKwh(doc.totals.dischargedKwh, lang)}</td>
              <td />
              <td className="num">{formatCny(doc.totals.costCny, lang)}</td>
              <td className="num">{formatCny(doc.totals.valueCny, lang)}</td>
              <td />
            </tr>
          </tfoot>
        </table>

        {doc.demand.length > 0 && (
          <>
            <h2>{t('bill.demand.title')}</h2>
            <table className="bill-print__table">
              <thead>
                <tr>
                  <th>{t('bill.field.site')}</th>
                  <th>{t('bill.field.dates')}</th>
                  <th className="num">{t('bill.demand.baselineKw')}</th>
                  <th className="num">{t('bill.demand.measuredKw')}</th>
                  <th className="num">{t('bill.demand.baselineCny')}</th>
                  <th className="num">{t('bill.demand.measuredCny')}</th>
                  <th className="num">{t('bill.demand.changeCny')}</th>
                </tr>
              </thead>
              <tbody>
                {doc.demand.map((d) => (
                  <tr key={`${d.siteId}-${d.from}`}>
                    <td>{siteName(d.siteId)}</td>
                    <td>{dateRange(d.from, d.to)}</td>
                    <td className="num">{demandKwText(t, d.baselineKw)}</td>
                    <td className="num">{demandKwText(t, d.measuredKw)}</td>
                    <td className="num">{formatCny(d.baselineCny, lang)}</td>
                    <td className="num">{formatCny(d.measuredCny, lang)}</td>
                    <td className="num">{formatCny(d.changeCny, lang)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )}

        <h2>{t('bill.totals')}</h2>
        <table className="bill-print__kv bill-print__totals">
          <tbody>
            <tr>
              <th>{t('bill.field.valueCny')}</th>
              <td className="num">{formatCny(doc.totals.valueCny, lang)}</td>
              <th>{t('bill.field.costCny')}</th>
              <td className="num">{formatCny(doc.totals.costCny, lang)}</td>
            </tr>
            <tr>
              <th>{t('bill.field.energyNetCny')}</th>
              <td className="num">{formatCny(doc.totals.energyNetCny, lang)}</td>
              <th>{t('bill.field.demandChangeCny')}</th>
              <td className="num">{formatCny(doc.totals.demandChangeCny, lang)}</td>
            </tr>
            <tr>
              <th>{t('bill.field.netCny')}</th>
              <td className="num">
                <strong data-testid="bill-print-net">{formatCny(doc.totals.netBenefitCny, lang)}</strong>
              </td>
              <th>{t('bill.field.distributedCny')}</th>
              <td className="num">{formatCny(doc.totals.distributedCny, lang)}</td>
            </tr>
            <tr>
              <th>{t('bill.party.maintenance')}</th>
              <td className="num">{formatCny(doc.totals.maintenanceCny, lang)}</td>
              <th>{t('bill.party.insurance')}</th>
              <td className="num">{formatCny(doc.totals.insuranceCny, lang)}</td>
            </tr>
            {leasing && (
              <tr>
                <th>{t('bill.party.rent')}</th>
                <td className="num" colSpan={3}>
                  {formatCny(doc.totals.rentCny, lang)}
                </td>
              </tr>
            )}
          </tbody>
        </table>

        <h2>{t('bill.party.title')}</h2>
        <table className="bill-print__table">
          <thead>
            <tr>
              <th>{t('bill.party.party')}</th>
              <th className="num">{t('bill.party.ratio')}</th>
              <th className="num">{t('bill.party.benefit')}</th>
              {leasing && <th className="num">{t('bill.party.rent')}</th>}
              <th className="num">{t('bill.party.maintenance')}</th>
              <th className="num">{t('bill.party.insurance')}</th>
              <th className="num">{t('bill.party.payable')}</th>
            </tr>
          </thead>
          <tbody>
            {doc.parties.map((p, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the parties' order is the contract's
              <tr key={i}>
                <td>
                  {p.name ?? t('bill.party.unnamedOwner')} (
                  {p.role === 'owner' ? t('bill.party.owner') : t('bill.party.investor')})
                </td>
                <td className="num">{formatKwh(p.ratioPct, lang)} %</td>
                <td className="num">{formatCny(p.benefitCny, lang)}</td>
                {leasing && <td className="num">{formatCny(p.rentCny, lang)}</td>}
                <td className="num">{formatCny(p.maintenanceCny, lang)}</td>
                <td className="num">{formatCny(p.insuranceCny, lang)}</td>
                <td className="num">
                  <strong>{formatCny(p.payableCny, lang)}</strong>
                </td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <td colSpan={leasing ? 6 : 5}>{t('bill.party.sum')}</td>
              <td className="num">
                <strong>{formatCny(doc.totals.distributedCny, lang)}</strong>
              </td>
            </tr>
          </tfoot>
        </table>

        <ol className="bill-print__notes">
          <li>{t('bill.printPage.noteEnergy')}</li>
          <li>{t('bill.source.rollupHint')}</li>
          <li>{leasing ? t('bill.party.leasingRule') : t('bill.party.selfRule')}</li>
          <li>{t('bill.printPage.noteRounding')}</li>
          <li>{t('bill.demand.note')}</li>
        </ol>

        <section className="bill-print__signatures" data-testid="bill-print-signatures">
          {[
            ...doc.parties.map((p) => ({
              role: p.role === 'owner' ? t('bill.party.owner') : t('bill.party.investor'),
              name: p.name ?? t('bill.party.unnamedOwner'),
            })),
            { role: t('bill.printPage.operator'), name: bill.companyName },
          ].map((s, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: fixed order
            <div className="bill-print__sign" key={i} data-testid="bill-print-sign">
              <div className="bill-print__sign-who">
                {t('bill.printPage.signWho', { role: s.role, name: s.name })}
              </div>
              <div className="bill-print__sign-line">{t('bill.printPage.signature')}</div>
              <div className="bill-print__sign-line">{t('bill.printPage.date')}</div>
            </div>
          ))}
        </section>
        <footer className="bill-print__foot">
          {t('bill.printPage.footer', { id: bill.id, time: formatDateTime(Date.now()) })}
        </footer>
      </article>
    </div>
  );
}
