/**
 * One site drilled into: name, status, address and the site's figures (SOC, battery power,
 * today's charged/discharged energy, active alarms, capacity, rated power), the live energy
 * flow and the device panels. 3036 (not in scope / gone) shows a translated notice with the
 * way back. Its times are in the site's zone (the screen's time base, tagged when it is not the
 * browser's).
 * Test hooks: `monitor-site-detail` (`data-site-id`), `monitor-back`, `site-figure-<key>`.
 */
import { ArrowLeftOutlined } from '@ant-design/icons';
import { ErrorCode, type SiteMonitorSite } from '@ess/contract';
import { Alert, Button, Skeleton } from 'antd';
import { useTranslation } from 'react-i18next';
import { ApiError } from '@/shared/api/errors';
import { formatNumber, formatQuantity } from '@/shared/format';
import { TimeBaseProvider, ZoneTag } from '@/shared/format/time-base';
import { LiveIndicator } from '@/shared/live';
import { useMonitorSiteDetail } from '../useMonitorData';
import { DevicePanels } from './DevicePanels';
import { EnergyFlow } from './EnergyFlow';
import { StatusBadge } from './SiteList';

function Figure({ name, label, value }: { name: string; label: string; value: string }) {
  return (
    <div className="monitor-figure" data-testid={`site-figure-${name}`}>
      <span className="monitor-figure__label">{label}</span>
      <span className="monitor-figure__value">{value}</span>
    </div>
  );
}

/** The detail of `siteId`; `site` is its live row from the list, if known. */
export function SiteDetail({
  siteId,
  site,
  onBack,
}: {
  siteId: number;
  site: SiteMonitorSite | undefined;
  onBack: () => void;
}) {
  const { t } = useTranslation();
  const { detail, updatedAt, live, loading, error, retry } = useMonitorSiteDetail(siteId, site);
  const notFound = error instanceof ApiError && error.code === ErrorCode.SITE_NOT_FOUND;
  const s = detail?.site;
  return (
    <TimeBaseProvider timeZone={s?.timezone}>
      <div className="monitor-detail" data-testid="monitor-site-detail" data-site-id={siteId}>
        <div className="monitor-detail__head">
          <Button icon={<ArrowLeftOutlined />} onClick={onBack} data-testid="monitor-back">
            {t('siteMonitor.detail.back')}
          </Button>
          {s && (
            <div className="monitor-detail__title">
              <h2>{s.name}</h2>
              <StatusBadge status={s.status} />
              <span className="muted">
                {s.code}
                {s.address ? ` · ${s.address}` : ''}
              </span>
            </div>
          )}
          <span className="monitor-detail__status">
            <ZoneTag site={s?.timezone} />
            <LiveIndicator status={live} updatedAt={updatedAt} />
          </span>
        </div>

        {loading && (
          <div className="panel">
            <Skeleton active paragraph={{ rows: 8 }} />
          </div>
        )}
        {error !== null && !detail && (
          <Alert
            type={notFound ? 'warning' : 'error'}
            showIcon
            title={notFound ? t('siteMonitor.detail.notFound') : t('siteMonitor.detail.loadFailed')}
            action={
              notFound ? undefined : (
                <Button size="small" onClick={retry}>
                  {t('siteMonitor.retry')}
                </Button>
              )
            }
            data-testid="monitor-detail-error"
          />
        )}

        {detail && s && (
          <>
            <div className="monitor-figures">
              <Figure name="soc" label="SOC" value={formatQuantity(s.socPct, '%')} />
              <Figure
                name="power"
                label={t('siteMonitor.list.power')}
                value={formatQuantity(s.batteryPowerKw, 'kW')}
              />
              <Figure
                name="charge"
                label={t('siteMonitor.list.todayCharge')}
                value={formatQuantity(s.todayChargeKwh, 'kWh')}
              />
              <Figure
                name="discharge"
                label={t('siteMonitor.list.todayDischarge')}
                value={formatQuantity(s.todayDischargeKwh, 'kWh')}
              />
              <Figure
                name="alarms"
                label={t('siteMonitor.list.alarms')}
                value={formatNumber(s.activeAlarms, 0)}
              />
              <Figure
                name="capacity"
                label={t('siteMonitor.detail.capacity')}
                value={formatQuantity(s.capacityKwh, 'kWh')}
              />
              <Figure
                name="rated"
                label={t('siteMonitor.detail.ratedPower')}
                value={formatQuantity(s.ratedPowerKw, 'kW')}
              />
            </div>
            <section className="panel">
              <header className="panel__head">
                <h3 className="panel__title">{t('siteMonitor.flow.title')}</h3>
              </header>
              <EnergyFlow flow={detail.panels.energyFlow} />
            </section>
            <DevicePanels panels={detail.panels} devices={detail.devices} />
          </>
        )}
      </div>
    </TimeBaseProvider>
  );
}
