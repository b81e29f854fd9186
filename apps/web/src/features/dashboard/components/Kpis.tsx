/**
 * Fleet KPIs: sites and devices; gateways online / offline; installed capacity (kWh) and rated
 * power (kW); charging and discharging power now (kW); today's charged and discharged energy
 * (kWh); fleet SOC (%, capacity-weighted over online batteries; "—" when none reports).
 * Test hooks: `kpis`, `kpi-sites`, `kpi-devices`, `kpi-gateways-online`,
 * `kpi-gateways-offline`, `kpi-capacity`, `kpi-rated-power`, `kpi-charging`,
 * `kpi-discharging`, `kpi-today-charge`, `kpi-today-discharge`, `kpi-soc`.
 */
import {
  ApartmentOutlined,
  CalendarOutlined,
  ClusterOutlined,
  DashboardOutlined,
  DatabaseOutlined,
  ThunderboltOutlined,
} from '@ant-design/icons';
import type { FleetOverview } from '@ess/contract';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { formatNumber, NO_VALUE, type Unit } from '@/shared/format';

function Figure({
  testId,
  label,
  value,
  unit,
  digits = 1,
  tone,
  size = 'main',
}: {
  testId: string;
  label?: string;
  value: number | null;
  unit?: Unit;
  digits?: number;
  tone?: 'good' | 'bad' | 'charge' | 'discharge';
  size?: 'main' | 'pair';
}) {
  // Four-digit figures and above need no decimal to be read at a glance.
  const text = formatNumber(value, value !== null && Math.abs(value) >= 1000 ? 0 : digits);
  // Colour marks a figure that says something; zero stays neutral.
  const shown = value === null || value === 0 ? undefined : tone;
  return (
    <div
      className={`kpi-figure kpi-figure--${size}${shown ? ` kpi-figure--${shown}` : ''}`}
      data-testid={testId}
    >
      {label && <span className="kpi-figure__label">{label}</span>}
      <span className="kpi-figure__value">
        {text}
        {unit && text !== NO_VALUE && <span className="kpi-figure__unit">{unit}</span>}
      </span>
    </div>
  );
}

function Kpi({
  title,
  icon,
  children,
  foot,
}: {
  title: string;
  icon: ReactNode;
  children: ReactNode;
  foot?: ReactNode;
}) {
  return (
    <section className="kpi">
      <header className="kpi__head">
        <span className="kpi__icon" aria-hidden="true">
          {icon}
        </span>
        <h2 className="kpi__title">{title}</h2>
      </header>
      <div className="kpi__body">{children}</div>
      {foot && <div className="kpi__foot">{foot}</div>}
    </section>
  );
}

/** The KPI cards of `overview`. */
export function Kpis({ overview }: { overview: FleetOverview }) {
  const { t } = useTranslation();
  const soc = overview.fleetSocPct;
  return (
    <div className="kpis" data-testid="kpis">
      <Kpi
        title={t('dashboard.kpi.sites')}
        icon={<ApartmentOutlined />}
        foot={
          <span className="kpi__inline" data-testid="kpi-devices">
            {t('dashboard.kpi.devices', {
              count: overview.devices,
              formatted: formatNumber(overview.devices, 0),
            })}
          </span>
        }
      >
        <Figure testId="kpi-sites" value={overview.sites} digits={0} />
      </Kpi>
      <Kpi title={t('dashboard.kpi.gateways')} icon={<ClusterOutlined />}>
        <div className="kpi__pair">
          <Figure
            testId="kpi-gateways-online"
            label={t('dashboard.kpi.online')}
            value={overview.gatewaysOnline}
            digits={0}
            tone="good"
            size="pair"
          />
          <Figure
            testId="kpi-gateways-offline"
            label={t('dashboard.kpi.offline')}
            value={overview.gatewaysOffline}
            digits={0}
            tone="bad"
            size="pair"
          />
        </div>
      </Kpi>
      <Kpi
        title={t('dashboard.kpi.capacity')}
        icon={<DatabaseOutlined />}
        foot={
          <span className="kpi__inline" data-testid="kpi-rated-power">
            {t('dashboard.kpi.ratedPower')} <strong>{formatNumber(overview.ratedPowerKw)}</strong> kW
          </span>
        }
      >
        <Figure testId="kpi-capacity" value={overview.capacityKwh} unit="kWh" />
      </Kpi>
      <Kpi title={t('dashboard.kpi.powerNow')} icon={<ThunderboltOutlined />}>
        <div className="kpi__pair">
          <Figure
            testId="kpi-charging"
            label={t('dashboard.kpi.charging')}
            value={overview.chargingPowerKw}
            unit="kW"
            tone="charge"
            size="pair"
          />
          <Figure
            testId="kpi-discharging"
            label={t('dashboard.kpi.discharging')}
            value={overview.dischargingPowerKw}
            unit="kW"
            tone="discharge"
            size="pair"
          />
        </div>
      </Kpi>
      <Kpi title={t('dashboard.kpi.today')} icon={<CalendarOutlined />}>
        <div className="kpi__pair">
          <Figure
            testId="kpi-today-charge"
            label={t('dashboard.kpi.charged')}
            value={overview.todayChargeKwh}
            unit="kWh"
            tone="charge"
            size="pair"
          />
          <Figure
            testId="kpi-today-discharge"
            label={t('dashboard.kpi.discharged')}
            value={overview.todayDischargeKwh}
            unit="kWh"
            tone="discharge"
            size="pair"
          />
        </div>
      </Kpi>
      <Kpi
        title={t('dashboard.kpi.soc')}
        icon={<DashboardOutlined />}
        foot={
          soc === null ? (
            <span className="kpi__inline kpi__inline--muted">{t('dashboard.kpi.socNone')}</span>
          ) : (
            <span className="soc-bar" aria-hidden="true">
              <span className="soc-bar__fill" style={{ width: `${Math.max(0, Math.min(100, soc))}%` }} />
            </span>
          )
        }
      >
        <Figure testId="kpi-soc" value={soc} unit="%" />
      </Kpi>
    </div>
  );
}
