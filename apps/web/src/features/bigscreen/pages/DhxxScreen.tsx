/**
 * /screen/dhxx — environment ("moving ring", 动环): temperature, humidity, smoke, water, door
 * of the environment sensor; the air conditioner's state, supply/return temperatures, cooling
 * and heating start set-points and fault flag; today's temperature and humidity curve; the
 * environment and air-conditioner alarms. Live.
 * Test hooks: `env-temp`, `env-rh`, `env-smoke`, `env-water`, `env-door`, `ac-state`, `ac-supply`.
 */
import { useTranslation } from 'react-i18next';
import { Figure, Panel, ScreenChart } from '@/shared/screen';
import { AlarmList, OnlineTag, pointText } from '../components/common';
import { SiteScreenFrame } from '../components/SiteScreenFrame';
import { deviceOf } from '../useSiteScreen';

/** Air conditioner `state`: 0 off, 1 cooling, 2 heating, 3 fan. */
const AC_STATES = ['off', 'cooling', 'heating', 'fan'] as const;

export default function DhxxScreen() {
  const { t } = useTranslation();
  return (
    <SiteScreenFrame screen="dhxx">
      {({ data, devices }) => {
        const env = deviceOf(devices, 'env_sensor');
        const ac = deviceOf(devices, 'air_conditioner');
        const flag = (v: number | undefined, on: string, off: string, testId: string, label: string) => (
          <Figure
            label={label}
            value={v === undefined ? '—' : v ? on : off}
            tone={v === undefined ? undefined : v ? 'bad' : 'good'}
            testId={testId}
          />
        );
        const acState = AC_STATES[ac?.points.state ?? -1];
        return (
          <div className="screen-grid screen-grid--dhxx">
            <Panel title={t('bigscreen.env.sensor')} className="area-a" extra={<OnlineTag device={env} />}>
              {env ? (
                <div className="figures figures--3">
                  <Figure
                    label={t('bigscreen.env.temp')}
                    value={pointText(env, 't_c')}
                    unit="°C"
                    tone="info"
                    testId="env-temp"
                  />
                  <Figure
                    label={t('bigscreen.env.rh')}
                    value={pointText(env, 'rh_pct')}
                    unit="%"
                    tone="info"
                    testId="env-rh"
                  />
                  {flag(
                    env.points.smoke,
                    t('bigscreen.env.detected'),
                    t('bigscreen.env.normal'),
                    'env-smoke',
                    t('bigscreen.env.smoke'),
                  )}
                  {flag(
                    env.points.water,
                    t('bigscreen.env.detected'),
                    t('bigscreen.env.normal'),
                    'env-water',
                    t('bigscreen.env.water'),
                  )}
                  {flag(
                    env.points.door,
                    t('bigscreen.env.open'),
                    t('bigscreen.env.closed'),
                    'env-door',
                    t('bigscreen.env.door'),
                  )}
                </div>
              ) : (
                <div className="screen-empty">
                  {t('bigscreen.noDevice', { type: t('bigscreen.env.sensor') })}
                </div>
              )}
            </Panel>
            <Panel title={t('bigscreen.env.ac')} className="area-b" extra={<OnlineTag device={ac} />}>
              {ac ? (
                <div className="figures figures--3">
                  <Figure
                    label={t('bigscreen.env.acState')}
                    value={acState ? t(`bigscreen.env.ac_${acState}`) : '—'}
                    tone={acState && acState !== 'off' ? 'good' : undefined}
                    testId="ac-state"
                  />
                  <Figure
                    label={t('bigscreen.env.supply')}
                    value={pointText(ac, 't_supply_c')}
                    unit="°C"
                    testId="ac-supply"
                  />
                  <Figure label={t('bigscreen.env.return')} value={pointText(ac, 't_return_c')} unit="°C" />
                  <Figure
                    label={t('bigscreen.env.coolingStart')}
                    value={pointText(ac, 'cooling_start_c')}
                    unit="°C"
                  />
                  <Figure
                    label={t('bigscreen.env.heatingStart')}
                    value={pointText(ac, 'heating_start_c')}
                    unit="°C"
                  />
                  {flag(
                    ac.points.fault,
                    t('bigscreen.env.fault'),
                    t('bigscreen.env.normal'),
                    'ac-fault',
                    t('bigscreen.env.acFault'),
                  )}
                </div>
              ) : (
                <div className="screen-empty">{t('bigscreen.noDevice', { type: t('bigscreen.env.ac') })}</div>
              )}
            </Panel>
            <Panel title={t('bigscreen.env.curve')} className="area-c">
              <ScreenChart
                testId="env-curve"
                timeZone={data.site.timezone}
                ts={data.curve.ts}
                series={[
                  {
                    name: t('bigscreen.env.temp'),
                    unit: '°C',
                    values: data.curve.envTempC,
                    color: '#ff7a45',
                  },
                  {
                    name: t('bigscreen.env.rh'),
                    unit: '%',
                    values: data.curve.envRhPct,
                    color: '#40a9ff',
                    area: true,
                  },
                ]}
              />
            </Panel>
            <Panel title={t('bigscreen.activeAlarms')} className="area-d">
              <AlarmList
                alarms={data.alarms.filter(
                  (a) => a.deviceType === 'env_sensor' || a.deviceType === 'air_conditioner',
                )}
                max={6}
              />
            </Panel>
          </div>
        );
      }}
    </SiteScreenFrame>
  );
}
