/**
 * Firmware packages `/firmware` (issue 16 item 4; view `device/firmware/index`,
 * firmware:package:list): name (spec §3) with its file, version, device type and models, size,
 * SHA-256 (copyable), status (spec §4: unused, published, disabled), uploader and upload time
 * (the viewer's zone: a package belongs to no site). Search by name, version or file; filter by
 * device type and status. Per row: details (drawer with the release notes zh/en), publish
 * (unused or disabled; firmware:package:publish), disable (published; same permission), delete
 * (firmware:package:delete; blocked while an upgrade batch names it). Each asks first; the
 * server's refusals (7030, 7035, 7036) are shown in the UI language. Upload with a progress bar
 * and abort (firmware:package:upload): {@link UploadDialog}.
 * Test hooks: `firmware-page`, `firmware-search`, `firmware-filter-type`, `firmware-filter-state`,
 * `firmware-refresh`, `firmware-upload`, `firmware-table` (rows `data-row-key` = package id),
 * `firmware-state-<id>` (`data-state`), `firmware-sha-<id>`, `firmware-view-<id>`,
 * `firmware-publish-<id>`, `firmware-publish-ok-<id>`, `firmware-disable-<id>`,
 * `firmware-disable-ok-<id>`, `firmware-delete-<id>`, `firmware-delete-ok-<id>`.
 */
import { CheckCircleOutlined, EyeOutlined, StopOutlined } from '@ant-design/icons';
import {
  DEVICE_TYPES,
  type DeviceType,
  deviceTypeLabel,
  FIRMWARE_PACKAGE_STATE_LABELS,
  FIRMWARE_PACKAGE_STATES,
  type FirmwarePackage,
  type FirmwarePackageState,
  Perm,
} from '@ess/contract';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Card, Grid, Select, type TableColumnsType, Tag, Typography } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { usePermission } from '@/features/auth';
import { showSuccess } from '@/shared/feedback';
import { formatDateTime } from '@/shared/format';
import { currentLang } from '@/shared/i18n';
import { DataTable } from '@/shared/ui/DataTable';
import { ListToolbar } from '@/shared/ui/ListToolbar';
import { deleteAction, RowActions } from '@/shared/ui/RowActions';
import {
  deletePackage,
  disablePackage,
  type FirmwareQuery,
  fetchPackages,
  firmwareKeys,
  publishPackage,
} from '../api';
import { PackageDrawer } from '../components/PackageDrawer';
import { UploadDialog } from '../components/UploadDialog';
import { formatBytes, PACKAGE_STATE_COLORS } from '../model';
import '../firmware.css';

export default function FirmwarePage() {
  const { t, i18n } = useTranslation();
  const lang = currentLang();
  const wide = Grid.useBreakpoint().md ?? true;
  const queryClient = useQueryClient();
  const canUpload = usePermission(Perm.firmwarePackageUpload);
  const canPublish = usePermission(Perm.firmwarePackagePublish);
  const canDelete = usePermission(Perm.firmwarePackageDelete);

  const [keyword, setKeyword] = useState('');
  const [deviceType, setDeviceType] = useState<DeviceType | undefined>();
  const [state, setState] = useState<FirmwarePackageState | undefined>();
  const [page, setPage] = useState({ pageNum: 1, pageSize: 20 });
  const [uploading, setUploading] = useState(false);
  const [viewing, setViewing] = useState<FirmwarePackage | null>(null);

  const q: FirmwareQuery = {
    ...page,
    ...(keyword ? { keyword } : {}),
    ...(deviceType ? { deviceType } : {}),
    ...(state ? { state } : {}),
  };
  const query = useQuery({
    queryKey: firmwareKeys.packages(q),
    queryFn: () => fetchPackages(q),
    placeholderData: keepPreviousData,
  });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: firmwareKeys.packagesAll });

  const change = useMutation({
    mutationFn: ({ pkg, action }: { pkg: FirmwarePackage; action: 'publish' | 'disable' | 'delete' }) =>
      action === 'publish'
        ? publishPackage(pkg.id)
        : action === 'disable'
          ? disablePackage(pkg.id)
          : deletePackage(pkg.id),
    onSuccess: (_, { pkg, action }) => {
      showSuccess(t(`firmware.done.${action}`, { name: pkg.name, version: pkg.version }));
      if (action === 'delete' && viewing?.id === pkg.id) setViewing(null);
    },
    onSettled: refresh,
  });
  const act = (pkg: FirmwarePackage, action: 'publish' | 'disable' | 'delete') =>
    change.mutateAsync({ pkg, action }).catch(() => undefined);

  // biome-ignore lint/correctness/useExhaustiveDependencies: column texts depend on the language
  const columns = useMemo<TableColumnsType<FirmwarePackage>>(() => {
    const cols: TableColumnsType<FirmwarePackage> = [
      {
        key: 'name',
        title: t('firmware.field.name'),
        fixed: wide ? 'left' : undefined,
        render: (_, p) => (
          <span className="fw-stack">
            <span className="fw-strong">{p.name}</span>
            <span className="fw-muted fw-ellipsis" title={p.fileName}>
              {p.fileName}
            </span>
          </span>
        ),
      },
      {
        key: 'version',
        title: t('firmware.field.version'),
        render: (_, p) => <code className="fw-mono">{p.version}</code>,
      },
      {
        key: 'target',
        title: t('firmware.field.target'),
        render: (_, p) => (
          <span className="fw-stack">
            <span>{deviceTypeLabel(p.deviceType, lang)}</span>
            <span className="fw-muted fw-ellipsis">
              {p.models.length > 0 ? p.models.join(', ') : t('firmware.allModels')}
            </span>
          </span>
        ),
      },
      {
        key: 'size',
        title: t('firmware.field.size'),
        align: 'right',
        render: (_, p) => <span className="fw-nowrap">{formatBytes(p.sizeBytes)}</span>,
      },
      {
        key: 'sha256',
        title: 'SHA-256',
        render: (_, p) => (
          <Typography.Text
            className="fw-mono fw-sha"
            copyable={{ text: p.sha256, tooltips: [t('firmware.copySha'), t('firmware.copied')] }}
            data-testid={`firmware-sha-${p.id}`}
            data-sha={p.sha256}
          >
            <span title={p.sha256}>{`${p.sha256.slice(0, 8)}…${p.sha256.slice(-4)}`}</span>
          </Typography.Text>
        ),
      },
      {
        key: 'state',
        title: t('firmware.field.state'),
        render: (_, p) => (
          <Tag
            color={PACKAGE_STATE_COLORS[p.state]}
            data-testid={`firmware-state-${p.id}`}
            data-state={p.state}
          >
            {FIRMWARE_PACKAGE_STATE_LABELS[p.state][lang]}
          </Tag>
        ),
      },
      {
        key: 'uploader',
        title: t('firmware.field.uploader'),
        render: (_, p) => (
          <span className="fw-stack">
            <span className="fw-nowrap">{p.uploaderName}</span>
            <span className="fw-muted fw-nowrap">{p.companyName}</span>
          </span>
        ),
      },
      {
        key: 'uploadedAt',
        title: t('firmware.field.uploadedAt'),
        render: (_, p) => <span className="fw-time">{formatDateTime(Date.parse(p.uploadedAt))}</span>,
      },
      {
        key: 'actions',
        title: t('firmware.field.actions'),
        fixed: 'right',
        render: (_, p) => (
          <RowActions
            className="fw-actions"
            name={`${p.name} ${p.version}`}
            actions={[
              {
                key: 'view',
                label: t('firmware.view'),
                icon: <EyeOutlined />,
                onClick: () => setViewing(p),
                testId: `firmware-view-${p.id}`,
              },
              {
                key: 'publish',
                visible: canPublish && p.state !== 'published',
                label: t('firmware.publish'),
                icon: <CheckCircleOutlined />,
                testId: `firmware-publish-${p.id}`,
                confirm: {
                  title: t('firmware.publishTitle'),
                  description: t('firmware.publishConfirm', { name: p.name, version: p.version }),
                  okText: t('firmware.publish'),
                  okTestId: `firmware-publish-ok-${p.id}`,
                  onConfirm: () => act(p, 'publish'),
                },
              },
              {
                key: 'disable',
                visible: canPublish && p.state === 'published',
                label: t('firmware.disable'),
                icon: <StopOutlined />,
                danger: true,
                testId: `firmware-disable-${p.id}`,
                confirm: {
                  title: t('firmware.disableTitle'),
                  description: t('firmware.disableConfirm', { name: p.name, version: p.version }),
                  okText: t('firmware.disable'),
                  okTestId: `firmware-disable-ok-${p.id}`,
                  onConfirm: () => act(p, 'disable'),
                },
              },
              deleteAction(t('common.delete'), {
                visible: canDelete,
                title: t('firmware.deleteTitle'),
                description: t('firmware.deleteConfirm', { name: p.name, version: p.version }),
                onConfirm: () => act(p, 'delete'),
                testId: `firmware-delete-${p.id}`,
                okTestId: `firmware-delete-ok-${p.id}`,
                blocked: p.batchCount > 0 ? t('firmware.inUse', { count: p.batchCount }) : undefined,
              }),
            ]}
          />
        ),
      },
    ];
    return cols;
  }, [i18n.language, canPublish, canDelete, wide]);

  return (
    <Card variant="borderless" className="fw-page" data-testid="firmware-page">
      <ListToolbar<FirmwarePackageState>
        className="fw-toolbar"
        keyword={{
          onSearch: (v) => {
            setKeyword(v);
            setPage((p) => ({ ...p, pageNum: 1 }));
          },
          placeholder: t('firmware.keyword'),
          className: 'fw-toolbar__keyword',
          testId: 'firmware-search',
        }}
        before={
          <Select<DeviceType>
            allowClear
            value={deviceType}
            onChange={(v) => {
              setDeviceType(v);
              setPage((p) => ({ ...p, pageNum: 1 }));
            }}
            options={DEVICE_TYPES.map((d) => ({ value: d, label: deviceTypeLabel(d, lang) }))}
            placeholder={t('firmware.allTypes')}
            aria-label={t('firmware.field.deviceType')}
            className="fw-toolbar__select"
            data-testid="firmware-filter-type"
          />
        }
        status={{
          value: state,
          onChange: (v) => {
            setState(v);
            setPage((p) => ({ ...p, pageNum: 1 }));
          },
          options: FIRMWARE_PACKAGE_STATES.map((s) => ({
            value: s,
            label: FIRMWARE_PACKAGE_STATE_LABELS[s][lang],
          })),
          placeholder: t('firmware.allStates'),
          ariaLabel: t('firmware.field.state'),
          className: 'fw-toolbar__select',
          testId: 'firmware-filter-state',
        }}
        refresh={{
          loading: query.isFetching && !query.isLoading,
          onClick: refresh,
          testId: 'firmware-refresh',
        }}
        add={
          canUpload
            ? {
                label: t('firmware.upload'),
                onClick: () => setUploading(true),
                className: 'fw-toolbar__add',
                testId: 'firmware-upload',
              }
            : undefined
        }
      />
      <div data-testid="firmware-table">
        <DataTable<FirmwarePackage>
          columns={columns}
          query={query}
          page={page}
          setPage={setPage}
          totalText={(n) => t('firmware.total', { count: n })}
          emptyText={t('firmware.empty')}
        />
      </div>
      <UploadDialog open={uploading} onClose={() => setUploading(false)} onUploaded={refresh} />
      <PackageDrawer
        pkg={(viewing && query.data?.list.find((p) => p.id === viewing.id)) ?? viewing}
        onClose={() => setViewing(null)}
      />
    </Card>
  );
}
