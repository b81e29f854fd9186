/**
 * Devices of the selected site (or of every site): filters (type, online, SN/model keyword),
 * server paging, and per row the SN and model, type, how it connects (gateway with its own
 * MQTT connection, or through which gateway), online state with last seen and offline reason,
 * rated power (kW), capacity (kWh), MQTT client id, connection address, firmware, actions.
 * Buttons appear only with their permission (device:device:save / move / delete / secret);
 * "move to site" opens the move dialog (the page's `onMove`).
 * Test hooks: `device-table`, `device-filter-type`, `device-filter-online`,
 * `device-filter-keyword`, `device-refresh`, `device-add`, `device-edit-<id>`,
 * `device-move-<id>`, `device-delete-<id>`, `device-secret-<id>`; rows carry `data-row-key` =
 * device id.
 */
import { EditOutlined, KeyOutlined, SwapOutlined } from '@ant-design/icons';
import { DEVICE_TYPES, type DeviceRow, type DeviceType } from '@ess/contract';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Empty, Select, type TableColumnsType, Tag, Tooltip } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { TYPE_COLOR, typeLabel } from '@/shared/devices';
import { showSuccess } from '@/shared/feedback';
import { formatQuantity, NO_VALUE } from '@/shared/format';
import { DataTable } from '@/shared/ui/DataTable';
import { ListToolbar } from '@/shared/ui/ListToolbar';
import { deleteAction, RowActions } from '@/shared/ui/RowActions';
import {
  type DeviceQuery,
  type DeviceSecret,
  deleteDevice,
  fetchDevices,
  registryKeys,
  resetDeviceSecret,
} from '../api';
import { OnlineStatus } from './OnlineStatus';

type OnlineFilter = 'all' | 'online' | 'offline';

interface Props {
  /** A site id, or 'all' for every site in scope. */
  siteId: number | 'all';
  /** Time zone of the selected site (times are shown in it). */
  timeZone?: string;
  canEdit: boolean;
  canDelete: boolean;
  canSecret: boolean;
  canMove: boolean;
  onAdd: (() => void) | null;
  onEdit: (device: DeviceRow) => void;
  onMove: (device: DeviceRow) => void;
  onSecret: (secret: DeviceSecret) => void;
}

/** The device table; see the module comment. */
export function DeviceTable({
  siteId,
  timeZone,
  canEdit,
  canDelete,
  canSecret,
  canMove,
  onAdd,
  onEdit,
  onMove,
  onSecret,
}: Props) {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const [type, setType] = useState<DeviceType | undefined>();
  const [online, setOnline] = useState<OnlineFilter>('all');
  const [keyword, setKeyword] = useState('');
  const [page, setPage] = useState({ pageNum: 1, pageSize: 20 });

  // Another site or other filters start at the first page.
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset when the filters change
  useEffect(() => setPage((p) => ({ ...p, pageNum: 1 })), [siteId, type, online, keyword]);

  const q: DeviceQuery = {
    ...page,
    ...(siteId === 'all' ? {} : { siteId }),
    ...(type ? { type } : {}),
    ...(keyword ? { keyword } : {}),
    ...(online === 'all' ? {} : { online: online === 'online' }),
  };
  const query = useQuery({
    queryKey: registryKeys.devices(q),
    queryFn: () => fetchDevices(q),
    placeholderData: keepPreviousData,
  });

  const remove = useMutation({
    mutationFn: (device: DeviceRow) => deleteDevice(device.id),
    onSuccess: () => {
      showSuccess(t('devices.deviceDeleted'));
      void queryClient.invalidateQueries({ queryKey: registryKeys.all });
    },
  });
  const reissue = useMutation({
    mutationFn: (device: DeviceRow) => resetDeviceSecret(device.id),
    onSuccess: (secret) => {
      void queryClient.invalidateQueries({ queryKey: registryKeys.all });
      onSecret(secret);
    },
  });

  const filtered = type !== undefined || online !== 'all' || keyword !== '';

  // biome-ignore lint/correctness/useExhaustiveDependencies: column texts depend on the language
  const columns = useMemo<TableColumnsType<DeviceRow>>(() => {
    const cols: TableColumnsType<DeviceRow> = [
      {
        key: 'sn',
        title: t('devices.field.sn'),
        fixed: 'left',
        render: (_, d) => (
          <span className="device-sn">
            <span className="device-sn__sn">{d.sn}</span>
            {(d.model || d.firmwareVersion) && (
              <span className="device-sn__model">
                {[d.model, d.firmwareVersion && t('devices.firmwareShort', { version: d.firmwareVersion })]
                  .filter(Boolean)
                  .join(' · ')}
              </span>
            )}
          </span>
        ),
      },
      {
        key: 'type',
        title: t('devices.field.typeRole'),
        responsive: ['sm'],
        render: (_, d) => (
          <span className="device-type">
            <span className="device-type__tags">
              <Tag color={TYPE_COLOR[d.type]}>{typeLabel(t, d.type)}</Tag>
              {d.gatewayId === null && <Tag color="blue">{t('devices.gatewayRole')}</Tag>}
              {d.gatewayId === null && !d.hasSecret && (
                <Tooltip title={t('devices.noSecretHint')}>
                  <Tag color="warning">{t('devices.noSecret')}</Tag>
                </Tooltip>
              )}
            </span>
            {d.gatewayId !== null && (
              <span className="device-type__via">
                {t('devices.viaGateway', { sn: d.gatewaySn ?? NO_VALUE })}
              </span>
            )}
          </span>
        ),
      },
      {
        key: 'status',
        title: t('devices.field.status'),
        render: (_, d) => (
          <OnlineStatus
            online={d.online}
            lastSeenAt={d.lastSeenAt}
            offlineReason={d.offlineReason}
            timeZone={timeZone}
            viaSn={d.gatewayId === null ? null : d.gatewaySn}
          />
        ),
      },
      {
        key: 'rating',
        title: t('devices.field.rating'),
        align: 'right',
        responsive: ['md'],
        render: (_, d) =>
          d.ratedPowerKw === null && d.capacityKwh === null ? (
            NO_VALUE
          ) : (
            <span className="device-rating">
              {d.ratedPowerKw !== null && <span>{formatQuantity(d.ratedPowerKw, 'kW')}</span>}
              {d.capacityKwh !== null && <span>{formatQuantity(d.capacityKwh, 'kWh')}</span>}
            </span>
          ),
      },
      {
        key: 'conn',
        title: t('devices.field.connection'),
        responsive: ['lg'],
        render: (_, d) => {
          const address =
            d.connAddress || d.connPort
              ? `${d.connAddress ?? ''}${d.connPort ? `:${d.connPort}` : ''}`
              : null;
          // The client id defaults to the SN; shown only when it differs.
          const clientId = d.gatewayId === null && d.mqttClientId !== d.sn ? d.mqttClientId : null;
          if (!address && !clientId) return NO_VALUE;
          return (
            <span className="device-conn">
              {clientId && (
                <span>
                  <span className="device-conn__label">MQTT</span>
                  <code>{clientId}</code>
                </span>
              )}
              {address && (
                <span>
                  <span className="device-conn__label">{t('devices.field.address')}</span>
                  <code>{address}</code>
                </span>
              )}
            </span>
          );
        },
      },
    ];
    if (siteId === 'all') {
      cols.splice(1, 0, {
        key: 'site',
        title: t('devices.field.site'),
        responsive: ['md'],
        render: (_, d) => d.siteName,
      });
    }
    if (canEdit || canDelete || canSecret || canMove) {
      cols.push({
        key: 'actions',
        title: t('devices.field.actions'),
        fixed: 'right',
        render: (_, d) => (
          <RowActions
            name={d.sn}
            actions={[
              {
                key: 'edit',
                visible: canEdit,
                label: t('common.edit'),
                icon: <EditOutlined />,
                onClick: () => onEdit(d),
                testId: `device-edit-${d.id}`,
              },
              {
                key: 'move',
                visible: canMove,
                label: t('devices.move.toSite'),
                icon: <SwapOutlined />,
                onClick: () => onMove(d),
                testId: `device-move-${d.id}`,
              },
              {
                key: 'secret',
                visible: canSecret && d.gatewayId === null,
                label: t('devices.secret.reset'),
                tooltip: d.hasSecret ? t('devices.secret.reset') : t('devices.secret.issue'),
                icon: <KeyOutlined />,
                testId: `device-secret-${d.id}`,
                confirm: {
                  title: d.hasSecret ? t('devices.secret.reset') : t('devices.secret.issue'),
                  description: d.hasSecret
                    ? t('devices.secret.resetConfirm', { sn: d.sn })
                    : t('devices.secret.issueConfirm', { sn: d.sn }),
                  okText: t('common.ok'),
                  onConfirm: () => reissue.mutateAsync(d).catch(() => undefined),
                },
              },
              deleteAction(t('common.delete'), {
                visible: canDelete,
                title: t('devices.deleteDevice'),
                description:
                  d.gatewayId === null
                    ? t('devices.deleteGatewayConfirm', { sn: d.sn })
                    : t('devices.deleteDeviceConfirm', { sn: d.sn }),
                onConfirm: () => remove.mutateAsync(d).catch(() => undefined),
                testId: `device-delete-${d.id}`,
              }),
            ]}
          />
        ),
      });
    }
    return cols;
  }, [i18n.language, siteId, timeZone, canEdit, canDelete, canSecret, canMove, onEdit, onMove]);

  const typeOptions = DEVICE_TYPES.map((v) => ({ value: v, label: typeLabel(t, v) }));
  const onlineOptions = [
    { value: 'all', label: t('devices.allStatus') },
    { value: 'online', label: t('devices.online') },
    { value: 'offline', label: t('devices.offline') },
  ];

  return (
    <div className="device-panel">
      <ListToolbar
        className="device-panel__toolbar"
        before={
          <>
            <Select<DeviceType>
              allowClear
              value={type}
              onChange={(v) => setType(v)}
              options={typeOptions}
              placeholder={t('devices.allTypes')}
              className="device-panel__type"
              aria-label={t('devices.field.type')}
              data-testid="device-filter-type"
            />
            <Select<OnlineFilter>
              value={online}
              onChange={setOnline}
              options={onlineOptions}
              className="device-panel__online"
              aria-label={t('devices.field.status')}
              data-testid="device-filter-online"
            />
          </>
        }
        keyword={{
          onSearch: setKeyword,
          placeholder: t('devices.keyword'),
          className: 'device-panel__keyword',
          testId: 'device-filter-keyword',
        }}
        refresh={{
          loading: query.isFetching && !query.isLoading,
          onClick: () => void queryClient.invalidateQueries({ queryKey: registryKeys.all }),
          testId: 'device-refresh',
        }}
        add={
          onAdd && {
            label: t('devices.addDevice'),
            onClick: onAdd,
            className: 'device-panel__add',
            testId: 'device-add',
          }
        }
      />
      <div data-testid="device-table">
        <DataTable<DeviceRow>
          columns={columns}
          query={query}
          page={page}
          setPage={setPage}
          totalText={(total) => t('devices.total', { count: total })}
          emptyText={
            <Empty
              image={Empty.PRESENTED_IMAGE_SIMPLE}
              description={filtered ? t('devices.noDeviceMatch') : t('devices.noDevices')}
            />
          }
        />
      </div>
    </div>
  );
}
