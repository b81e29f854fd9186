/**
 * One bill (`bill/detail`) in a drawer: the head (project, month with each site's zone and hours —
 * 743/745 h around daylight saving — version, state, income mode, who drafted and settled it, the
 * reason of a correction), the flags (lines from rollups, backwards registers, days without data),
 * the totals (kWh, cost, value, energy net, demand charge change, net benefit, maintenance,
 * premium, distributed), the lines checkable against the readings (BillLines.tsx), the demand
 * charge change, the split, and every version of the month (open one to see it). Actions by
 * permission: settle (7060 when it is already settled: the client shows "电费已结算"; disabled with
 * its reason while the month has not ended at every site — a month-to-date draft, 7064 from the
 * server), correct, export xlsx, print page. Full width on a phone.
 * Test hooks: `bill-drawer`, `bill-drawer-state` (`data-state`), `bill-drawer-confirm`,
 * `bill-drawer-confirm-ok`, `bill-drawer-correct`, `bill-drawer-export`, `bill-drawer-print`,
 * `bill-total-net`, `bill-versions` (rows `data-row-key` = bill id), `bill-flags`,
 * `bill-drawer-mtd` (the month-to-date notice), `bill-drawer-confirm-blocked` (why settling waits).
 */
import { CheckCircleOutlined, DownloadOutlined, EditOutlined, PrinterOutlined } from '@ant-design/icons';
import { type BillRow, Perm, PROJECT_INCOME_MODE_LABELS } from '@ess/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  Button,
  Descriptions,
  Drawer,
  Grid,
  Popconfirm,
  Skeleton,
  Space,
  Table,
  Tag,
  Tooltip,
} from 'antd';
import { useTranslation } from 'react-i18next';
import { usePermission } from '@/features/auth';
import { showSuccess } from '@/shared/feedback';
import { formatCny, formatDateTime, formatKwh, formatNumber } from '@/shared/format';
import { currentLang } from '@/shared/i18n';
import { billKeys, confirmBill, fetchBill, fetchVersions } from '../api';
import { BILL_STATE_COLORS, billStateLabel, isMonthToDate } from '../model';
import { DemandTable, LinesTable, PartiesTable } from './BillLines';

export function BillDrawer({
  id,
  onOpen,
  onClose,
  onCorrect,
  onPrint,
  onExport,
  exporting,
}: {
  id: number;
  onOpen: (id: number) => void;
  onClose: () => void;
  onCorrect: (b: BillRow) => void;
  onPrint: (b: BillRow) => void;
  onExport: (b: BillRow) => Promise<void>;
  exporting: number | null;
}) {
  const { t } = useTranslation();
  const lang = currentLang();
  const wide = Grid.useBreakpoint().md ?? true;
  const queryClient = useQueryClient();
  const canConfirm = usePermission(Perm.billConfirm);
  const canCorrect = usePermission(Perm.billCorrect);
  const canExport = usePermission(Perm.billExport);
  const query = useQuery({ queryKey: billKeys.detail(id), queryFn: () => fetchBill(id) });
  const bill = query.data;
  const versionsQuery = useQuery({
    queryKey: billKeys.versions(bill?.projectId ?? 0, bill?.month ?? ''),
    queryFn: () => fetchVersions(bill!.projectId, bill!.month),
    enabled: Boolean(bill),
  });
  const settle = useMutation({
    mutationFn: () => confirmBill(id),
    onSuccess: () => showSuccess(t('bill.done.confirm', { project: bill?.projectName, month: bill?.month })),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: billKeys.all }),
  });

  const title = bill
    ? t('bill.drawerTitle', { project: bill.projectName, month: bill.month, version: bill.version })
    : t('bill.detail');
  const doc = bill?.document;
  const latestSettled = bill?.state === 'confirmed' && !bill.superseded;
  const monthToDate = bill ? isMonthToDate(bill, Date.now()) : false;
  const actions = bill && (
    <Space wrap size={8}>
      {canConfirm && bill.state === 'draft' && monthToDate && (
        <Tooltip
          title={
            <span data-testid="bill-drawer-confirm-blocked">{t('bill.notEnded', { month: bill.month })}</span>
          }
        >
          <Button type="primary" icon={<CheckCircleOutlined />} disabled data-testid="bill-drawer-confirm">
            {t('bill.confirm')}
          </Button>
        </Tooltip>
      )}
      {canConfirm && bill.state === 'draft' && !monthToDate && (
        <Popconfirm
          title={t('bill.confirmTitle')}
          description={t('bill.confirmText', {
            project: bill.projectName,
            month: bill.month,
            net: formatCny(bill.netBenefitCny, lang),
          })}
          okText={t('bill.confirm')}
          cancelText={t('common.cancel')}
          okButtonProps={{ 'data-testid': 'bill-drawer-confirm-ok' }}
          onConfirm={() => settle.mutateAsync().catch(() => undefined)}
        >
          <Button type="primary" icon={<CheckCircleOutlined />} data-testid="bill-drawer-confirm">
            {t('bill.confirm')}
          </Button>
        </Popconfirm>
      )}
      {canCorrect && latestSettled && (
        <Button icon={<EditOutlined />} onClick={() => onCorrect(bill)} data-testid="bill-drawer-correct">
          {t('bill.correct')}
        </Button>
      )}
      {canExport && (
        <Button
          icon={<DownloadOutlined />}
          loading={exporting === bill.id}
          onClick={() => void onExport(bill)}
          data-testid="bill-drawer-export"
        >
          {t('bill.exportXlsx')}
        </Button>
      )}
      <Button icon={<PrinterOutlined />} onClick={() => onPrint(bill)} data-testid="bill-drawer-print">
        {t('bill.print')}
      </Button>
    </Space>
  );

  return (
    <Drawer
      open
      title={title}
      width={wide ? Math.min(1360, window.innerWidth - 24) : '100%'}
      onClose={onClose}
      destroyOnHidden
      className="bill-drawer"
      extra={wide ? actions : undefined}
    >
      <div data-testid="bill-drawer">
        {!bill || !doc ? (
          <Skeleton active />
        ) : (
          <div className="bill-sections">
            {!wide && <div className="bill-phone-actions">{actions}</div>}
            <Descriptions size="small" column={wide ? 3 : 1} bordered>
              <Descriptions.Item label={t('bill.field.project')}>
                {bill.projectName} <span className="bill-muted">({bill.companyName})</span>
              </Descriptions.Item>
              <Descriptions.Item label={t('bill.field.month')}>
                <span className="bill-stack">
                  <span>{bill.month}</span>
                  {doc.sites.map((s) => (
                    <span key={s.siteId} className="bill-muted">
                      {t('bill.siteHours', {
                        site: s.siteName,
                        zone: s.timeZone,
                        hours: formatNumber(s.monthHours, 3),
                        billed: formatNumber(s.billedHours, 3),
                      })}
                    </span>
                  ))}
                </span>
              </Descriptions.Item>
              <Descriptions.Item label={t('bill.field.state')}>
                <Space size={4} wrap>
                  <Tag
                    color={BILL_STATE_COLORS[bill.state]}
                    data-testid="bill-drawer-state"
                    data-state={bill.state}
                  >
                    {billStateLabel(bill.state, lang)}
                  </Tag>
                  <span>{t('bill.versionN', { version: bill.version })}</span>
                  {monthToDate && <Tag color="blue">{t('bill.monthToDate')}</Tag>}
                  {bill.superseded && <Tag>{t('bill.superseded')}</Tag>}
                </Space>
              </Descriptions.Item>
              <Descriptions.Item label={t('bill.field.mode')}>
                {PROJECT_INCOME_MODE_LABELS[bill.incomeMode][lang]}
              </Descriptions.Item>
              <Descriptions.Item label={t('bill.field.drafted')}>
                <span data-testid="bill-drawer-drafted">
                  {formatDateTime(bill.createdAt)} {bill.createdBy ?? t('bill.byTask')}
                </span>
              </Descriptions.Item>
              <Descriptions.Item label={t('bill.field.settled')}>
                <span data-testid="bill-drawer-settled">
                  {bill.confirmedAt === null
                    ? '—'
                    : `${formatDateTime(bill.confirmedAt)} ${bill.confirmedBy ?? ''}`}
                </span>
              </Descriptions.Item>
              {bill.reason && (
                <Descriptions.Item label={t('bill.field.reason')} span={wide ? 3 : 1}>
                  {bill.reason}
                </Descriptions.Item>
              )}
            </Descriptions>

            {monthToDate && (
              <Alert
                type="info"
                showIcon
                data-testid="bill-drawer-mtd"
                message={t('bill.monthToDateTitle', { month: bill.month })}
                description={t('bill.notEnded', { month: bill.month })}
              />
            )}
            <div data-testid="bill-flags">
              {doc.flags.rollupLines > 0 && (
                <Alert
                  type="warning"
                  showIcon
                  message={t('bill.flags.rollup', { count: doc.flags.rollupLines })}
                  description={t('bill.source.rollupHint')}
                />
              )}
              {doc.flags.backwardsLines > 0 && (
                <Alert
                  type="error"
                  showIcon
                  message={t('bill.flags.backwards', { count: doc.flags.backwardsLines })}
                  description={t('bill.source.backwardsHint')}
                />
              )}
              {doc.flags.missingDates > 0 && (
                <Alert
                  type="warning"
                  showIcon
                  message={t('bill.flags.missing', { count: doc.flags.missingDates })}
                />
              )}
            </div>

            <Descriptions size="small" column={wide ? 4 : 1} bordered title={t('bill.totals')}>
              <Descriptions.Item label={t('bill.field.chargedKwh')}>
                {formatKwh(doc.totals.chargedKwh, lang)}
              </Descriptions.Item>
              <Descriptions.Item label={t('bill.field.dischargedKwh')}>
                {formatKwh(doc.totals.dischargedKwh, lang)}
              </Descriptions.Item>
              <Descriptions.Item label={t('bill.field.costCny')}>
                {formatCny(doc.totals.costCny, lang)}
              </Descriptions.Item>
              <Descriptions.Item label={t('bill.field.valueCny')}>
                {formatCny(doc.totals.valueCny, lang)}
              </Descriptions.Item>
              <Descriptions.Item label={t('bill.field.energyNetCny')}>
                {formatCny(doc.totals.energyNetCny, lang)}
              </Descriptions.Item>
              <Descriptions.Item label={t('bill.field.demandChangeCny')}>
                {formatCny(doc.totals.demandChangeCny, lang)}
              </Descriptions.Item>
              <Descriptions.Item label={t('bill.field.netCny')}>
                <strong data-testid="bill-total-net">{formatCny(doc.totals.netBenefitCny, lang)}</strong>
              </Descriptions.Item>
              {doc.incomeMode === 'leasing' && (
                <Descriptions.Item label={t('bill.party.rent')}>
                  {formatCny(doc.totals.rentCny, lang)}
                </Descriptions.Item>
              )}
              <Descriptions.Item label={t('bill.party.maintenance')}>
                {formatCny(doc.totals.maintenanceCny, lang)}
              </Descriptions.Item>
              <Descriptions.Item label={t('bill.party.insurance')}>
                {formatCny(doc.totals.insuranceCny, lang)}
              </Descriptions.Item>
              <Descriptions.Item label={t('bill.field.distributedCny')}>
                {formatCny(doc.totals.distributedCny, lang)}
              </Descriptions.Item>
            </Descriptions>

            <section>
              <h3 className="bill-h">{t('bill.lines')}</h3>
              <p className="bill-muted">{t('bill.linesHint')}</p>
              <LinesTable bill={bill} lang={lang} />
            </section>
            <section>
              <h3 className="bill-h">{t('bill.demand.title')}</h3>
              <DemandTable bill={bill} lang={lang} />
            </section>
            <section>
              <h3 className="bill-h">{t('bill.party.title')}</h3>
              <PartiesTable bill={bill} lang={lang} />
            </section>
            <section>
              <h3 className="bill-h">{t('bill.versions')}</h3>
              <Table<BillRow>
                size="small"
                rowKey="id"
                pagination={false}
                loading={versionsQuery.isLoading}
                dataSource={versionsQuery.data ?? []}
                scroll={{ x: 'max-content' }}
                data-testid="bill-versions"
                rowClassName={(v) => (v.id === bill.id ? 'bill-current-row' : '')}
                columns={[
                  {
                    key: 'v',
                    title: t('bill.field.version'),
                    render: (_, v) =>
                      v.id === bill.id ? (
                        <strong>{t('bill.versionN', { version: v.version })}</strong>
                      ) : (
                        <Button type="link" size="small" onClick={() => onOpen(v.id)}>
                          {t('bill.versionN', { version: v.version })}
                        </Button>
                      ),
                  },
                  {
                    key: 's',
                    title: t('bill.field.state'),
                    render: (_, v) => (
                      <Tag color={BILL_STATE_COLORS[v.state]}>{billStateLabel(v.state, lang)}</Tag>
                    ),
                  },
                  {
                    key: 'n',
                    title: t('bill.field.netCny'),
                    align: 'right',
                    render: (_, v) => formatCny(v.netBenefitCny, lang),
                  },
                  { key: 'r', title: t('bill.field.reason'), render: (_, v) => v.reason ?? '—' },
                  {
                    key: 't',
                    title: t('bill.field.times'),
                    render: (_, v) => (
                      <span className="bill-stack">
                        <span className="bill-time">{formatDateTime(v.createdAt)}</span>
                        {v.confirmedAt !== null && (
                          <span className="bill-muted">
                            {t('bill.settledAt', { time: formatDateTime(v.confirmedAt) })}
                          </span>
                        )}
                      </span>
                    ),
                  },
                ]}
              />
            </section>
          </div>
        )}
      </div>
    </Drawer>
  );
}
