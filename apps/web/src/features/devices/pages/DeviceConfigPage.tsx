/**
 * Site configuration `/deviceconfig` (spec §2; view `device/deviceconfig/index`): sites on the
 * left (search, connection badges, capacity kWh and power kW), the selected site's facts and
 * its devices on the right (filters, paging, add / edit / move / delete, MQTT secret re-issue).
 * A site just added becomes the selection, so "add device" then adds to it (the device dialog
 * names the site it adds to). Moving is explicit: a device to another site (row action), a site
 * to another company (header). After a gateway is created or its secret re-issued, its
 * connection facts are shown once. Buttons follow the user's permissions (device:site:save|
 * delete|move, device:device:save|delete|secret|move; '*:*:*' grants all). Below 992 px the two
 * columns stack.
 * Test hooks: `deviceconfig`, `site-list`, `site-add`, `site-header`, `site-edit`, `site-move`,
 * `site-delete`, `device-table`, `device-add`, `secret-dialog`,
 * `secret-value` (and those of the components).
 */
import {
  DeleteOutlined,
  EditOutlined,
  EnvironmentOutlined,
  GlobalOutlined,
  SwapOutlined,
} from '@ant-design/icons';
import { type DeviceRow, MAX_PAGE_SIZE, Perm, type SiteRow } from '@ess/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button, Empty, Popconfirm, Skeleton, Tag, Tooltip } from 'antd';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { usePermission } from '@/features/auth';
import { useCompanyOptions } from '@/features/org-people';
import { showSuccess } from '@/shared/feedback';
import { formatNumber, formatQuantity } from '@/shared/format';
import { type DeviceSecret, deleteSite, fetchSites, registryKeys } from '../api';
import { DeviceDialog } from '../components/DeviceDialog';
import { DeviceTable } from '../components/DeviceTable';
import { MoveDeviceDialog } from '../components/MoveDeviceDialog';
import { MoveSiteDialog } from '../components/MoveSiteDialog';
import { SecretDialog } from '../components/SecretDialog';
import { SiteDialog } from '../components/SiteDialog';
import { SiteList, type SiteSelection } from '../components/SiteList';
import { siteLink } from '../labels';
import '../deviceconfig.css';

function SiteHeader({
  site,
  onEdit,
  onMove,
  onDeleted,
  canDelete,
}: {
  site: SiteRow;
  onEdit: (() => void) | null;
  onMove: (() => void) | null;
  onDeleted: () => void;
  canDelete: boolean;
}) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const link = siteLink(site);
  const remove = useMutation({
    mutationFn: () => deleteSite(site.id),
    onSuccess: () => {
      showSuccess(t('devices.siteDeleted'));
      onDeleted();
      void queryClient.invalidateQueries({ queryKey: registryKeys.all });
    },
  });
  const hasDevices = site.deviceCount > 0;
  const coordinates =
    site.latitude !== null && site.longitude !== null
      ? `${formatNumber(site.latitude, 6)}, ${formatNumber(site.longitude, 6)}`
      : null;

  return (
    <header className="site-header" data-testid="site-header">
      <div className="site-header__main">
        <div className="site-header__title">
          <h2>{site.name}</h2>
          <Tag className="site-header__code">{site.code}</Tag>
          <span className={`site-link site-link--${link}`}>
            <span className={`status-dot status-dot--${link}`} aria-hidden="true" />
            {t(`devices.siteStatus.${link}`)}
          </span>
          {site.isDemo && <Tag color="purple">{t('devices.demo')}</Tag>}
        </div>
        <div className="site-header__facts">
          <span>{site.companyName}</span>
          {site.address && (
            <span>
              <EnvironmentOutlined /> {site.address}
            </span>
          )}
          <span>
            <GlobalOutlined /> {site.timezone}
          </span>
          {coordinates && <span>{coordinates}</span>}
        </div>
      </div>
      <dl className="site-header__figures">
        <div>
          <dt>{t('devices.figures.devices')}</dt>
          <dd>{formatNumber(site.deviceCount, 0)}</dd>
        </div>
        <div>
          <dt>{t('devices.figures.gateways')}</dt>
          <dd>
            {formatNumber(site.onlineGateways, 0)} / {formatNumber(site.gateways, 0)}
          </dd>
        </div>
        <div>
          <dt>{t('devices.figures.capacity')}</dt>
          <dd>{formatQuantity(site.capacityKwh, 'kWh')}</dd>
        </div>
        <div>
          <dt>{t('devices.figures.ratedPower')}</dt>
          <dd>{formatQuantity(site.ratedPowerKw, 'kW')}</dd>
        </div>
      </dl>
      {(onEdit || onMove || canDelete) && (
        <div className="site-header__actions">
          {onEdit && (
            <Button icon={<EditOutlined />} onClick={onEdit} data-testid="site-edit">
              {t('devices.editSite')}
            </Button>
          )}
          {onMove && (
            <Button icon={<SwapOutlined />} onClick={onMove} data-testid="site-move">
              {t('devices.move.toCompany')}
            </Button>
          )}
          {canDelete &&
            (hasDevices ? (
              <Tooltip title={t('devices.deleteSiteBlocked')}>
                <Button danger disabled icon={<DeleteOutlined />} data-testid="site-delete">
                  {t('devices.deleteSite')}
                </Button>
              </Tooltip>
            ) : (
              <Popconfirm
                title={t('devices.deleteSite')}
                description={t('devices.deleteSiteConfirm', { name: site.name })}
                okText={t('common.delete')}
                okButtonProps={{ danger: true }}
                cancelText={t('common.cancel')}
                onConfirm={() => remove.mutateAsync().catch(() => undefined)}
              >
                <Button danger icon={<DeleteOutlined />} data-testid="site-delete">
                  {t('devices.deleteSite')}
                </Button>
              </Popconfirm>
            ))}
        </div>
      )}
    </header>
  );
}

/** The site configuration view. */
export default function DeviceConfigPage() {
  const { t } = useTranslation();
  const canSiteSave = usePermission(Perm.siteSave);
  const canSiteDelete = usePermission(Perm.siteDelete);
  const canDeviceSave = usePermission(Perm.deviceSave);
  const canDeviceDelete = usePermission(Perm.deviceDelete);
  const canSecret = usePermission(Perm.deviceSecret);
  // Moving a site to another company needs another company to move it to.
  const companies = useCompanyOptions();
  const canSiteMove = usePermission(Perm.siteMove) && (companies.data?.length ?? 0) > 1;
  const canDeviceMove = usePermission(Perm.deviceMove);

  const [selection, setSelection] = useState<SiteSelection | null>(null);
  // The selected site's row as last known, for a selection not on the loaded page of the list
  // (picked before a search, or just added); the loaded page's row wins, being fresher.
  const [selectedSite, setSelectedSite] = useState<SiteRow | null>(null);
  const [sites, setSites] = useState<SiteRow[]>([]);
  const [siteDialog, setSiteDialog] = useState<{ open: boolean; site: SiteRow | null }>({
    open: false,
    site: null,
  });
  const [deviceDialog, setDeviceDialog] = useState<{ open: boolean; device: DeviceRow | null }>({
    open: false,
    device: null,
  });
  const [secret, setSecret] = useState<DeviceSecret | null>(null);
  const [movingDevice, setMovingDevice] = useState<DeviceRow | null>(null);
  const [movingSite, setMovingSite] = useState<SiteRow | null>(null);

  const onLoaded = useCallback((list: SiteRow[]) => {
    setSites(list);
    // First visit (or the selected site was deleted): the first site.
    setSelection((current) => current ?? list[0]?.id ?? null);
  }, []);

  const select = useCallback((next: SiteSelection, site: SiteRow | null) => {
    setSelection(next);
    setSelectedSite(site);
  }, []);

  const onEditDevice = useCallback((device: DeviceRow) => setDeviceDialog({ open: true, device }), []);

  // A site just added becomes the selection (found by its unique code, wherever it is listed).
  const onSiteSaved = useCallback(
    async ({ id, code, created }: { id: number; code: string; created: boolean }) => {
      if (!created) return;
      setSelection(id);
      setSelectedSite(null);
      const found = await fetchSites({ pageNum: 1, pageSize: MAX_PAGE_SIZE, keyword: code }).catch(
        () => null,
      );
      const row = found?.list.find((s) => s.id === id);
      if (row) setSelectedSite((current) => current ?? row);
    },
    [],
  );

  const siteId = typeof selection === 'number' ? selection : null;
  const site =
    siteId === null
      ? null
      : (sites.find((s) => s.id === siteId) ?? (selectedSite?.id === siteId ? selectedSite : null));

  return (
    <div className="deviceconfig" data-testid="deviceconfig">
      <SiteList
        selected={selection}
        onSelect={select}
        onLoaded={onLoaded}
        onAdd={canSiteSave ? () => setSiteDialog({ open: true, site: null }) : null}
      />
      <section className="deviceconfig__main" aria-label={t('devices.devicesOfSite')}>
        {selection === null ? (
          <div className="deviceconfig__empty">
            <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('devices.selectSite')} />
          </div>
        ) : (
          <>
            {site ? (
              <SiteHeader
                site={site}
                onEdit={canSiteSave ? () => setSiteDialog({ open: true, site }) : null}
                onMove={canSiteMove ? () => setMovingSite(site) : null}
                canDelete={canSiteDelete}
                onDeleted={() => {
                  setSelection(null);
                  setSelectedSite(null);
                }}
              />
            ) : selection !== 'all' ? (
              // The site just added, while its row loads.
              <header className="site-header" data-testid="site-header">
                <Skeleton active title paragraph={false} />
              </header>
            ) : (
              <header className="site-header" data-testid="site-header">
                <div className="site-header__main">
                  <div className="site-header__title">
                    <h2>{t('devices.allSites')}</h2>
                  </div>
                  <div className="site-header__facts">{t('devices.allSitesHint')}</div>
                </div>
              </header>
            )}
            <DeviceTable
              siteId={selection}
              timeZone={site?.timezone}
              canEdit={canDeviceSave}
              canDelete={canDeviceDelete}
              canSecret={canSecret}
              canMove={canDeviceMove}
              onAdd={
                canDeviceSave && sites.length > 0 ? () => setDeviceDialog({ open: true, device: null }) : null
              }
              onEdit={onEditDevice}
              onMove={setMovingDevice}
              onSecret={setSecret}
            />
          </>
        )}
      </section>

      <SiteDialog
        open={siteDialog.open}
        site={siteDialog.site}
        canMove={canSiteMove}
        onClose={() => setSiteDialog((s) => ({ ...s, open: false }))}
        onSaved={(saved) => void onSiteSaved(saved)}
      />
      <DeviceDialog
        open={deviceDialog.open}
        device={deviceDialog.device}
        defaultSite={site}
        onClose={() => setDeviceDialog((s) => ({ ...s, open: false }))}
        onSecret={setSecret}
      />
      <MoveDeviceDialog
        device={movingDevice}
        currentSite={site && movingDevice && site.id === movingDevice.siteId ? site : null}
        onClose={() => setMovingDevice(null)}
      />
      <MoveSiteDialog site={movingSite} onClose={() => setMovingSite(null)} />
      <SecretDialog secret={secret} onClose={() => setSecret(null)} />
    </div>
  );
}
