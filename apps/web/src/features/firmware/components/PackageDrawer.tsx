/**
 * One firmware package in a drawer: name, version, device type and models, status and when it
 * last changed, file name, size (bytes and binary units), SHA-256 in full (copyable), company,
 * uploader, upload time (the viewer's zone), the upgrade batches naming it, and the release
 * notes in Chinese and English side by side (stacked on a phone), each as typed.
 * Test hooks: `firmware-drawer`, `firmware-note-zh`, `firmware-note-en`, `firmware-drawer-sha`.
 */
import { deviceTypeLabel, FIRMWARE_PACKAGE_STATE_LABELS, type FirmwarePackage } from '@ess/contract';
import { Descriptions, Drawer, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { DIALOG_WIDTH_PX } from '@/shared/config';
import { formatDateTime, formatNumber, NO_VALUE } from '@/shared/format';
import { currentLang } from '@/shared/i18n';
import { formatBytes, PACKAGE_STATE_COLORS } from '../model';

export function PackageDrawer({ pkg, onClose }: { pkg: FirmwarePackage | null; onClose: () => void }) {
  const { t } = useTranslation();
  const lang = currentLang();
  return (
    <Drawer
      open={pkg !== null}
      onClose={onClose}
      title={pkg ? `${pkg.name} ${pkg.version}` : ''}
      size={`min(${DIALOG_WIDTH_PX}px, 100vw)`}
      destroyOnHidden
    >
      {pkg && (
        <div data-testid="firmware-drawer" className="fw-drawer">
          <Descriptions
            size="small"
            bordered
            column={1}
            items={[
              { key: 'name', label: t('firmware.field.name'), children: pkg.name },
              { key: 'version', label: t('firmware.field.version'), children: <code>{pkg.version}</code> },
              {
                key: 'type',
                label: t('firmware.field.target'),
                children: `${deviceTypeLabel(pkg.deviceType, lang)} · ${
                  pkg.models.length > 0 ? pkg.models.join(', ') : t('firmware.allModels')
                }`,
              },
              {
                key: 'state',
                label: t('firmware.field.state'),
                children: (
                  <>
                    <Tag color={PACKAGE_STATE_COLORS[pkg.state]}>
                      {FIRMWARE_PACKAGE_STATE_LABELS[pkg.state][lang]}
                    </Tag>
                    {pkg.stateChangedAt && (
                      <span className="fw-muted">{formatDateTime(Date.parse(pkg.stateChangedAt))}</span>
                    )}
                  </>
                ),
              },
              { key: 'file', label: t('firmware.field.file'), children: pkg.fileName },
              {
                key: 'size',
                label: t('firmware.field.size'),
                children: `${formatBytes(pkg.sizeBytes)} (${t('firmware.bytes', { count: pkg.sizeBytes, n: formatNumber(pkg.sizeBytes, 0) })})`,
              },
              {
                key: 'sha',
                label: 'SHA-256',
                children: (
                  <Typography.Text
                    copyable={{ tooltips: [t('firmware.copySha'), t('firmware.copied')] }}
                    className="fw-mono fw-sha-full"
                    data-testid="firmware-drawer-sha"
                  >
                    {pkg.sha256}
                  </Typography.Text>
                ),
              },
              {
                key: 'uploader',
                label: t('firmware.field.uploader'),
                children: `${pkg.uploaderName} · ${pkg.companyName}`,
              },
              {
                key: 'uploadedAt',
                label: t('firmware.field.uploadedAt'),
                children: formatDateTime(Date.parse(pkg.uploadedAt)),
              },
              { key: 'batches', label: t('firmware.field.batches'), children: pkg.batchCount },
            ]}
          />
          <div className="fw-notes">
            <section className="fw-note">
              <h4>{t('firmware.field.noteZh')}</h4>
              <p data-testid="firmware-note-zh" lang="zh">
                {pkg.releaseNoteZh ?? NO_VALUE}
              </p>
            </section>
            <section className="fw-note">
              <h4>{t('firmware.field.noteEn')}</h4>
              <p data-testid="firmware-note-en" lang="en">
                {pkg.releaseNoteEn ?? NO_VALUE}
              </p>
            </section>
          </div>
        </div>
      )}
    </Drawer>
  );
}
