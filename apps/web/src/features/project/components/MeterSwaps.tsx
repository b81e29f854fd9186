/**
 * Meter swaps of a project's storage meters (issue 17: "a meter reading that goes backwards (meter
 * replaced: record the swap, bill both parts)"; contract `projectMeterSwapRequest`, server
 * modules/project/meter-swaps.ts). In the project detail's storage meters section:
 * - {@link MeterSwapDialog}: "更换电表 / Record meter swap" of one meter — the instant in the site's
 *   time zone (`YYYY-MM-DD HH:mm`, the zone and its offset shown), the old meter's final and the new
 *   meter's initial import/export total registers (kWh, the meter's own side), the new meter's
 *   CT/PT/side (prefilled with the meter's), old/new serials and a note. The contract's
 *   `meterSwapProblem` is checked before sending; the server's refusals (7004 future, 7005 settled
 *   month, 7006 old final reading below the last stored one, 7007 a swap at or after the instant)
 *   are shown in place. On success it says from which day and how many days were re-priced.
 * - {@link MeterSwapList}: the swaps of every meter, newest first, the latest one of a meter in an
 *   unsettled month deletable (asks first; 7008 otherwise).
 * Test hooks: `project-meter-swap-<deviceId>` (open), `meter-swap-form`, `meter-swap-time`,
 * `meter-swap-old-import`, `meter-swap-old-export`, `meter-swap-new-import`, `meter-swap-new-export`,
 * `meter-swap-old-serial`, `meter-swap-new-serial`, `meter-swap-ok`, `meter-swap-error`,
 * `project-meter-swaps` (the list; items `meter-swap-item`, `data-swap-id`),
 * `meter-swap-delete-<id>`, `meter-swap-delete-ok-<id>`.
 */
import { METER_SWAP_LIMITS, meterSwapProblem, type ProjectMeter, type ProjectMeterSwap } from '@ess/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  Button,
  type ButtonProps,
  Checkbox,
  Empty,
  Form,
  Input,
  InputNumber,
  Modal,
  Popconfirm,
  Space,
  Table,
} from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { failureText } from '@/shared/api/client';
import { isApiError } from '@/shared/api/errors';
import { showSuccess } from '@/shared/feedback';
import { zoneLabel } from '@/shared/format';
import { currentLang } from '@/shared/i18n';
import { deleteMeterSwap, type MeterSwapBody, projectKeys, recordMeterSwap } from '../api';

interface SwapValues {
  swappedAt: string;
  oldImportKwh: number | null;
  oldExportKwh: number | null;
  newImportKwh: number | null;
  newExportKwh: number | null;
  newCtRatio: number | null;
  newPtRatio: number | null;
  newReadsSecondary: boolean;
  oldSerial?: string;
  newSerial?: string;
  note?: string;
}

/** The form recording a swap of `meter` (closed when `meter` is null). */
export function MeterSwapDialog({
  projectId,
  meter,
  onClose,
}: {
  projectId: number;
  meter: ProjectMeter | null;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const lang = currentLang();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<SwapValues>();
  const [error, setError] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (body: MeterSwapBody) => recordMeterSwap(body),
    onSuccess: (answer) => {
      showSuccess(t('project.swap.done', { day: answer.repriced.fromDay, days: answer.repriced.days }));
      void queryClient.invalidateQueries({ queryKey: projectKeys.all });
      onClose();
    },
    onError: (err) => {
      setError(isApiError(err) ? failureText(err.code, err.serverMsg, 'server') : (err as Error).message);
    },
  });
  if (!meter) return null;

  const submit = async () => {
    setError(null);
    try {
      await form.validateFields();
    } catch {
      return;
    }
    const v = form.getFieldsValue(true) as SwapValues;
    const body: MeterSwapBody = {
      id: projectId,
      deviceId: meter.deviceId,
      swappedAt: v.swappedAt.trim(),
      oldImportKwh: v.oldImportKwh ?? 0,
      oldExportKwh: v.oldExportKwh ?? 0,
      newImportKwh: v.newImportKwh ?? 0,
      newExportKwh: v.newExportKwh ?? 0,
      newCtRatio: v.newCtRatio ?? 0,
      newPtRatio: v.newPtRatio ?? 0,
      newReadsSecondary: v.newReadsSecondary,
      oldSerial: v.oldSerial ?? null,
      newSerial: v.newSerial ?? null,
      note: v.note ?? null,
    };
    const problem = meterSwapProblem(body, lang);
    if (problem) {
      form.setFields([{ name: problem.field as keyof SwapValues, errors: [problem.message] }]);
      return;
    }
    save.mutate(body);
  };

  const required = [{ required: true, message: t('project.swap.required') }];
  const reading = (name: keyof SwapValues, label: string, testId: string) => (
    <Form.Item name={name} label={label} rules={required}>
      <InputNumber min={0} style={{ width: '100%' }} data-testid={testId} />
    </Form.Item>
  );
  return (
    <Modal
      open
      title={t('project.swap.title', { sn: meter.sn })}
      onCancel={onClose}
      onOk={() => void submit()}
      okText={t('project.swap.submit')}
      okButtonProps={{ loading: save.isPending, 'data-testid': 'meter-swap-ok' } as ButtonProps}
      destroyOnHidden
      width={640}
    >
      <Form
        form={form}
        layout="vertical"
        data-testid="meter-swap-form"
        initialValues={{
          swappedAt: '',
          newCtRatio: meter.ctRatio,
          newPtRatio: meter.ptRatio,
          newReadsSecondary: meter.readsSecondary,
        }}
      >
        <Form.Item
          name="swappedAt"
          label={t('project.swap.swappedAt')}
          extra={t('project.swap.swappedAtHint')}
          rules={required}
        >
          <Input
            placeholder="YYYY-MM-DD HH:mm"
            addonAfter={zoneLabel(meter.timezone)}
            data-testid="meter-swap-time"
          />
        </Form.Item>
        <div className="project-grid">
          {reading('oldImportKwh', t('project.swap.oldImport'), 'meter-swap-old-import')}
          {reading('oldExportKwh', t('project.swap.oldExport'), 'meter-swap-old-export')}
          {reading('newImportKwh', t('project.swap.newImport'), 'meter-swap-new-import')}
          {reading('newExportKwh', t('project.swap.newExport'), 'meter-swap-new-export')}
        </div>
        <div className="project-muted">{t('project.swap.readingsHint')}</div>
        <Space wrap align="end">
          <Form.Item name="newCtRatio" label={t('project.swap.newCt')} rules={required}>
            <InputNumber min={0} />
          </Form.Item>
          <Form.Item name="newPtRatio" label={t('project.swap.newPt')} rules={required}>
            <InputNumber min={0} />
          </Form.Item>
          <Form.Item name="newReadsSecondary" valuePropName="checked">
            <Checkbox>{t('project.swap.newSecondary')}</Checkbox>
          </Form.Item>
        </Space>
        <div className="project-grid">
          <Form.Item name="oldSerial" label={t('project.swap.oldSerial')}>
            <Input maxLength={METER_SWAP_LIMITS.serial} data-testid="meter-swap-old-serial" />
          </Form.Item>
          <Form.Item name="newSerial" label={t('project.swap.newSerial')}>
            <Input maxLength={METER_SWAP_LIMITS.serial} data-testid="meter-swap-new-serial" />
          </Form.Item>
        </div>
        <Form.Item name="note" label={t('project.swap.note')}>
          <Input.TextArea maxLength={METER_SWAP_LIMITS.note} rows={2} />
        </Form.Item>
        {error && <Alert type="error" showIcon message={error} data-testid="meter-swap-error" />}
      </Form>
    </Modal>
  );
}

/** The recorded swaps of the project's meters, newest first; the deletable ones with a delete. */
export function MeterSwapList({
  projectId,
  meters,
  canEdit,
}: {
  projectId: number;
  meters: readonly ProjectMeter[];
  canEdit: boolean;
}) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: (s: ProjectMeterSwap) => deleteMeterSwap(projectId, s.id),
    onSuccess: (answer) => {
      showSuccess(t('project.swap.deleted', { day: answer.repriced.fromDay, days: answer.repriced.days }));
      void queryClient.invalidateQueries({ queryKey: projectKeys.all });
    },
  });
  const rows = meters
    .flatMap((m) => m.swaps.map((s) => ({ ...s, sn: m.sn, timezone: m.timezone })))
    .sort((a, b) => b.swappedAtMs - a.swappedAtMs);
  const ratio = (ct: number, pt: number, secondary: boolean) =>
    `CT ${ct} · PT ${pt}${secondary ? ` · ×${ct * pt}` : ''}`;
  return (
    <div data-testid="project-meter-swaps" className="project-section">
      <div className="project-strong">{t('project.swap.list')}</div>
      <Table
        size="small"
        rowKey="id"
        pagination={false}
        scroll={{ x: 'max-content' }}
        dataSource={rows}
        locale={{
          emptyText: <Empty description={t('project.swap.none')} image={Empty.PRESENTED_IMAGE_SIMPLE} />,
        }}
        onRow={(s) => ({ 'data-testid': 'meter-swap-item', 'data-swap-id': s.id }) as object}
        columns={[
          { key: 'sn', title: t('project.form.meterSn'), dataIndex: 'sn' },
          {
            key: 'at',
            title: t('project.swap.swappedAt'),
            render: (_, s) => (
              <span className="project-nowrap" title={zoneLabel(s.timezone, s.swappedAtMs)}>
                {s.swappedAt} <span className="project-muted">{s.timezone}</span>
              </span>
            ),
          },
          {
            key: 'old',
            title: t('project.swap.oldMeter'),
            render: (_, s) => (
              <span className="project-stack">
                <span>{s.oldSerial ?? '—'}</span>
                <span className="project-muted">
                  {t('project.swap.registers', { imp: s.oldImportKwh, exp: s.oldExportKwh })}
                </span>
                <span className="project-muted">
                  {ratio(s.oldCtRatio, s.oldPtRatio, s.oldReadsSecondary)}
                </span>
              </span>
            ),
          },
          {
            key: 'new',
            title: t('project.swap.newMeter'),
            render: (_, s) => (
              <span className="project-stack">
                <span>{s.newSerial ?? '—'}</span>
                <span className="project-muted">
                  {t('project.swap.registers', { imp: s.newImportKwh, exp: s.newExportKwh })}
                </span>
                <span className="project-muted">
                  {ratio(s.newCtRatio, s.newPtRatio, s.newReadsSecondary)}
                </span>
              </span>
            ),
          },
          { key: 'note', title: t('project.swap.note'), render: (_, s) => s.note ?? '—' },
          { key: 'by', title: t('project.swap.by'), render: (_, s) => s.createdBy ?? '—' },
          {
            key: 'action',
            title: '',
            render: (_, s) =>
              canEdit && s.deletable ? (
                <Popconfirm
                  title={t('project.swap.deleteTitle')}
                  description={t('project.swap.deleteConfirm', { at: `${s.swappedAt} ${s.timezone}` })}
                  onConfirm={() => remove.mutateAsync(s).catch(() => undefined)}
                  okButtonProps={{ 'data-testid': `meter-swap-delete-ok-${s.id}` } as ButtonProps}
                >
                  <Button size="small" danger data-testid={`meter-swap-delete-${s.id}`}>
                    {t('project.swap.delete')}
                  </Button>
                </Popconfirm>
              ) : null,
          },
        ]}
      />
    </div>
  );
}
