/**
 * /syfscreen/syfsys — system information of a site: the site (company, address, time zone,
 * position, registered, ToU scheme, capacity, rated power, connection) and every device with
 * type, SN, model, firmware, rating, capacity, registration, first data and online state.
 * Test hooks: `syf-site`, `syf-devices` (rows `syf-device-<sn>`).
 */
import { useTranslation } from 'react-i18next';
import { typeLabel } from '@/shared/devices';
import { formatDate, formatDateTime, formatNumber } from '@/shared/format';
import { Figure, Panel } from '@/shared/screen';
import { OnlineTag } from '../components/common';
import { SiteScreenFrame } from '../components/SiteScreenFrame';

export default function SyfsysScreen() {
  const { t } = useTranslation();
  return (
    <SiteScreenFrame screen="syfsys">
      {({ data, devices }) => {
        const s = data.site;
        const rows: [string, string][] = [
          [t('bigscreen.syf.code'), s.code],
          [t('bigscreen.syf.company'), s.companyName],
          [t('bigscreen.syf.address'), s.address ?? '—'],
          [t('bigscreen.syf.timezone'), s.timezone],
          [
            t('bigscreen.syf.position'),
            s.latitude === null || s.longitude === null
              ? '—'
              : `${formatNumber(s.latitude, 4)}°, ${formatNumber(s.longitude, 4)}°`,
          ],
          [t('bigscreen.syf.registered'), formatDateTime(s.registeredAt, s.timezone)],
          [t('bigscreen.syf.scheme'), s.touSchemeName ?? t('bigscreen.syf.noScheme')],
        ];
        const firstData = devices.map((d) => d.firstDataAt).filter((v): v is number => v !== null);
        return (
          <div className="screen-grid screen-grid--syf">
            <Panel
              title={s.name}
              className="area-a"
              testId="syf-site"
              extra={<OnlineTag device={{ online: s.online }} />}
            >
              <div className="figures figures--2">
                <Figure label={t('bigscreen.capacity')} value={formatNumber(s.capacityKwh, 0)} unit="kWh" />
                <Figure label={t('bigscreen.ratedPower')} value={formatNumber(s.ratedPowerKw, 0)} unit="kW" />
                <Figure label={t('bigscreen.syf.devices')} value={String(devices.length)} />
                <Figure
                  small
                  label={t('bigscreen.syf.commissioned')}
                  value={firstData.length ? formatDate(Math.min(...firstData), s.timezone) : '—'}
                />
              </div>
              <table className="screen-table screen-table--kv">
                <tbody>
                  {rows.map(([k, v]) => (
                    <tr key={k}>
                      <th>{k}</th>
                      <td>{v}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Panel>
            <Panel title={t('bigscreen.syf.deviceList')} className="area-b">
              <table className="screen-table" data-testid="syf-devices">
                <thead>
                  <tr>
                    <th>{t('bigscreen.syf.type')}</th>
                    <th>SN</th>
                    <th>{t('bigscreen.syf.model')}</th>
                    <th>{t('bigscreen.syf.firmware')}</th>
                    <th className="num">{t('bigscreen.syf.rating')}</th>
                    <th>{t('bigscreen.syf.firstData')}</th>
                    <th>{t('bigscreen.syf.lastData')}</th>
                    <th>{t('bigscreen.syf.state')}</th>
                  </tr>
                </thead>
                <tbody>
                  {devices.map((d) => (
                    <tr key={d.id} data-testid={`syf-device-${d.sn}`}>
                      <td>
                        {typeLabel(t, d.type)}
                        {d.isGateway ? ` · ${t('bigscreen.syf.gateway')}` : ''}
                      </td>
                      <td>{d.sn}</td>
                      <td>{d.model ?? '—'}</td>
                      <td>{d.firmwareVersion ?? '—'}</td>
                      <td className="num">
                        {d.ratedPowerKw !== null
                          ? `${formatNumber(d.ratedPowerKw, 0)} kW`
                          : d.capacityKwh !== null
                            ? `${formatNumber(d.capacityKwh, 0)} kWh`
                            : '—'}
                      </td>
                      <td>{formatDate(d.firstDataAt, s.timezone)}</td>
                      <td data-testid="syf-last">{formatDateTime(d.ts, s.timezone)}</td>
                      <td>
                        <OnlineTag device={d} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Panel>
          </div>
        );
      }}
    </SiteScreenFrame>
  );
}
