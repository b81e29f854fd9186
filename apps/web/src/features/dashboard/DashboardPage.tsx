/**
 * /dashboard (spec §2 "operational overview"): who is signed in (one compact line) and the
 * live state of the fleet — KPIs, today's power curve, sites, latest alarms. Data: the HTTP
 * overview, then the live `fleet` channel (snapshots replace KPIs, sites and alarms); the
 * power curve is fetched again every minute. Nothing is invented: missing readings show "—",
 * empty parts say there is no data yet. Every time on it (curve, alarms, last seen, updated) is
 * in the fleet's time base, which the zone tag states (shared/format/time-base.tsx).
 * Test hooks: `dashboard`, `dashboard-profile`, `live-indicator`, `zone-tag`, `kpis`, `kpi-<name>`,
 * `power-curve`, `site-status-table`, `alarm-list`, `dashboard-empty`, `dashboard-error`.
 */
import { Alert, Button, Skeleton } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useSession } from '@/features/auth';
import { TimeBaseProvider, ZoneTag } from '@/shared/format/time-base';
import { LiveIndicator } from '@/shared/live';
import { findRoute, useRouteTable } from '@/shared/routing';
import { AlarmList } from './components/AlarmList';
import { IdentityCard } from './components/IdentityCard';
import { Kpis } from './components/Kpis';
import { PowerCurve } from './components/PowerCurve';
import { SiteStatusTable } from './components/SiteStatusTable';
import { useFleet } from './useFleet';
import './dashboard.css';

const SITE_CONFIG_PATH = '/deviceconfig';

/** The /dashboard view. */
export default function DashboardPage() {
  const { t } = useTranslation();
  const user = useSession((s) => s.user);
  const fleet = useFleet();
  const canConfigure = useRouteTable((s) => findRoute(s.frameRoutes, SITE_CONFIG_PATH) !== undefined);

  if (!user) return null;
  const { overview, sites, alarms } = fleet;

  return (
    <TimeBaseProvider timeZone={fleet.timeBase?.timezone}>
      <div className="dashboard" data-testid="dashboard">
        <div className="dashboard__top">
          <IdentityCard user={user} />
          <span className="dashboard__status">
            <ZoneTag fleet={fleet.timeBase} />
            <LiveIndicator status={fleet.live} updatedAt={overview?.updatedAt} />
          </span>
        </div>

        {fleet.failed && (
          <Alert
            type="error"
            showIcon
            title={t('dashboard.loadFailed')}
            action={
              <Button size="small" onClick={fleet.retry}>
                {t('dashboard.retry')}
              </Button>
            }
            data-testid="dashboard-error"
          />
        )}

        {fleet.loading && (
          <div className="panel">
            <Skeleton active paragraph={{ rows: 6 }} />
          </div>
        )}

        {overview && (
          <>
            {overview.sites === 0 && (
              <Alert
                type="info"
                showIcon
                title={t('dashboard.noSites')}
                description={t('dashboard.noSitesHint')}
                action={
                  canConfigure ? (
                    <Link to={SITE_CONFIG_PATH}>
                      <Button size="small" type="primary">
                        {t('dashboard.toSiteConfig')}
                      </Button>
                    </Link>
                  ) : undefined
                }
                data-testid="dashboard-empty"
              />
            )}
            <Kpis overview={overview} />
            <div className="dashboard__row">
              <PowerCurve curve={fleet.powerCurve} />
              <AlarmList alarms={alarms ?? []} />
            </div>
            <SiteStatusTable sites={sites ?? []} />
          </>
        )}
      </div>
    </TimeBaseProvider>
  );
}
