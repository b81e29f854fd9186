/**
 * /export (menu component 'monitor/export/index', permission `monitor:export:run`,
 * spec §5, §9): choose agent → time range → station → export type → energy-storage devices →
 * data, then download the xlsx.
 *
 * Rules come from the contract's `checkExportRequest`, the same function the server runs: a field
 * stays disabled until the ones before it are chosen, and the first disabled field says which
 * prerequisite is missing; the range and the 10-entry limit are checked as they change; Export
 * checks everything again and shows the broken rule at its field and as a message. Refusals of
 * the server land at the same field. While the file streams the page shows the bytes received
 * and the rows the file holds, and the download can be cancelled.
 * Test hooks: `export-page`, `export-<field>` (agent, time, site, type, devices, items),
 * `export-submit`, `export-cancel`, `export-progress`, `export-done`.
 */
import {
  checkExportEntries,
  checkExportRange,
  checkExportRequest,
  DEVICE_TYPES,
  ENERGY_ITEM_LABELS,
  ErrorCode,
  EXPORT_MAX_DAYS,
  EXPORT_MAX_ENTRIES,
  EXPORT_PREREQUISITES,
  EXPORT_TYPES,
  type ExportChoices,
  type ExportField,
  type ExportIssue,
  type ExportType,
  errorMessage,
  exportItemsFor,
  missingPrerequisite,
  POINTS,
} from '@ess/contract';
import { useQuery } from '@tanstack/react-query';
import { Button, DatePicker, Form, Progress, Radio, Select, Space, Typography } from 'antd';
import type { Dayjs } from 'dayjs';
import dayjs from 'dayjs';
import { useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { failureText } from '@/shared/api/client';
import { isApiError } from '@/shared/api/errors';
import { typeLabel } from '@/shared/devices';
import { showError, showSuccess } from '@/shared/feedback';
import { formatNumber } from '@/shared/format';
import { currentLang } from '@/shared/i18n';
import {
  type DownloadProgress,
  downloadExport,
  fetchAgents,
  fetchExportDevices,
  fetchExportSites,
  saveFile,
} from './api';
import './export.css';

type Range = [Dayjs, Dayjs] | null;

/** The form field a server refusal belongs to. */
function fieldOfCode(code: number): ExportField | null {
  const prerequisite = EXPORT_PREREQUISITES.find((p) => p.code === code);
  if (prerequisite) return prerequisite.field;
  switch (code) {
    case ErrorCode.RANGE_INVERTED:
    case ErrorCode.RANGE_IN_FUTURE:
    case ErrorCode.EXPORT_RANGE_TOO_LONG:
      return 'time';
    case ErrorCode.COMPANY_NOT_FOUND:
      return 'agentId';
    case ErrorCode.SITE_NOT_FOUND:
      return 'siteId';
    case ErrorCode.DEVICE_NOT_FOUND:
    case ErrorCode.EXPORT_TOO_MANY_ENTRIES:
      return 'deviceIds';
    case ErrorCode.EXPORT_DATA_REQUIRED:
    case ErrorCode.EXPORT_ITEM_INVALID:
      return 'items';
    default:
      return null;
  }
}

/** "1.2 MB" / "830 KB" / "512 B". */
function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} B`;
}

/** The /export view. */
export default function ExportPage() {
  const { t, i18n } = useTranslation();
  const lang = currentLang();
  const [agentId, setAgentId] = useState<number | null>(null);
  const [range, setRange] = useState<Range>(null);
  const [siteId, setSiteId] = useState<number | null>(null);
  const [type, setType] = useState<ExportType | null>(null);
  const [deviceIds, setDeviceIds] = useState<number[]>([]);
  const [items, setItems] = useState<string[]>([]);
  /** The rule shown at its field (from Export or from the server). */
  const [shown, setShown] = useState<{ field: ExportField; text: string } | null>(null);
  const [progress, setProgress] = useState<DownloadProgress | null>(null);
  const [done, setDone] = useState<{ fileName: string; rows: number | null } | null>(null);
  const abort = useRef<AbortController | null>(null);

  const agents = useQuery({ queryKey: ['export', 'agents'], queryFn: fetchAgents });
  const sites = useQuery({
    queryKey: ['export', 'sites', agentId],
    queryFn: () => fetchExportSites(agentId as number),
    enabled: agentId !== null,
  });
  const devices = useQuery({
    queryKey: ['export', 'devices', siteId],
    queryFn: () => fetchExportDevices(siteId as number),
    enabled: siteId !== null,
  });

  const choices: ExportChoices = {
    userInfo: undefined,
    agentId,
    startMs: range ? range[0].valueOf() : null,
    endMs: range ? range[1].valueOf() : null,
    siteId,
    type,
    deviceIds,
    items,
  };

  const chosenTypes = useMemo(() => {
    const byId = new Map((devices.data ?? []).map((d) => [d.id, d.type]));
    const types = new Set(deviceIds.map((id) => byId.get(id)).filter((x) => x !== undefined));
    return DEVICE_TYPES.filter((dt) => types.has(dt));
  }, [devices.data, deviceIds]);
  const itemOptions = useMemo(() => {
    if (!type) return [];
    return exportItemsFor(type, chosenTypes).map((item) => {
      let label = item;
      if (type === 'alarms') label = t(`export.levels.${item as 'warning' | 'fault'}`);
      else if (type === 'dailyEnergy') label = `${ENERGY_ITEM_LABELS[lang][item] ?? item} (kWh)`;
      else {
        const def = chosenTypes.map((dt) => POINTS[dt].find((p) => p.name === item)).find(Boolean);
        if (def) label = def.unit ? `${def[lang]} (${def.unit})` : def[lang];
      }
      return { value: item, label: `${label}` };
    });
  }, [type, chosenTypes, lang, t]);

  /** Live rules: the range and the entry limit are said as soon as they are broken. */
  const live: ExportIssue | null = (() => {
    if (range) {
      const issue = checkExportRange(range[0].valueOf(), range[1].valueOf(), Date.now());
      if (issue) return issue;
    }
    return checkExportEntries(deviceIds);
  })();

  /** What a field shows under it: a rule it breaks, else the missing prerequisite when disabled. */
  function fieldState(field: ExportField): {
    disabled: boolean;
    help?: string;
    status?: 'error' | 'warning';
  } {
    // `items` waits for every prerequisite, the devices included.
    const missing = missingPrerequisite(choices, field);
    const disabled = missing !== null || progress !== null;
    if (shown?.field === field) return { disabled, help: shown.text, status: 'error' };
    if (live?.field === field)
      return { disabled, help: errorMessage(live.code, lang, live.params), status: 'error' };
    // Only the first field waiting for a prerequisite says which one.
    const order: ExportField[] = ['agentId', 'time', 'siteId', 'type', 'deviceIds', 'items'];
    const firstWaiting = order.find((f) => missingPrerequisite(choices, f) !== null);
    if (missing && firstWaiting === field) {
      return { disabled, help: errorMessage(missing.code, lang), status: 'warning' };
    }
    return { disabled };
  }

  const clearShown = (field: ExportField) => setShown((s) => (s?.field === field ? null : s));

  async function onExport() {
    setDone(null);
    const issue = checkExportRequest(choices, Date.now());
    if (issue) {
      const text = errorMessage(issue.code, lang, issue.params);
      setShown({ field: issue.field, text });
      showError(text);
      return;
    }
    setShown(null);
    const controller = new AbortController();
    abort.current = controller;
    setProgress({ bytes: 0, rows: null });
    try {
      const { fileName, blob, rows } = await downloadExport(
        { agentId, startMs: choices.startMs, endMs: choices.endMs, siteId, type, deviceIds, items },
        setProgress,
        controller.signal,
      );
      saveFile(fileName, blob);
      setDone({ fileName, rows });
      showSuccess(t('export.done', { name: fileName }));
    } catch (err) {
      if ((err as Error).name === 'AbortError') {
        showError(t('export.cancelled'));
      } else if (isApiError(err)) {
        const text = failureText(err.code, err.serverMsg);
        const field = fieldOfCode(err.code);
        if (field) setShown({ field, text });
        showError(text);
      } else {
        showError(t('export.failed'));
      }
    } finally {
      abort.current = null;
      setProgress(null);
    }
  }

  const agentState = fieldState('agentId');
  const timeState = fieldState('time');
  const siteState = fieldState('siteId');
  const typeState = fieldState('type');
  const devicesState = fieldState('deviceIds');
  const itemsState = fieldState('items');

  return (
    <div className="export-page" data-testid="export-page">
      <Typography.Title level={4} className="export-page__title">
        {t('export.title')}
      </Typography.Title>
      <Typography.Paragraph type="secondary" className="export-page__hint">
        {t('export.hint', { max: EXPORT_MAX_ENTRIES, days: EXPORT_MAX_DAYS })}
      </Typography.Paragraph>
      <Form layout="vertical" className="export-form" key={i18n.language}>
        <Form.Item label={t('export.agent')} validateStatus={agentState.status} help={agentState.help}>
          <Select
            data-testid="export-agent"
            placeholder={t('export.agentPlaceholder')}
            loading={agents.isLoading}
            disabled={agentState.disabled}
            value={agentId ?? undefined}
            showSearch={{ optionFilterProp: 'label' }}
            options={(agents.data ?? []).map((a) => ({ value: a.id, label: a.name }))}
            onChange={(value: number) => {
              setAgentId(value);
              setSiteId(null);
              setDeviceIds([]);
              setItems([]);
              clearShown('agentId');
            }}
          />
        </Form.Item>
        <Form.Item label={t('export.time')} validateStatus={timeState.status} help={timeState.help}>
          <div data-testid="export-time">
            <DatePicker.RangePicker
              className="export-form__range"
              showTime={{ format: 'HH:mm' }}
              format="YYYY-MM-DD HH:mm"
              disabled={timeState.disabled}
              value={range}
              disabledDate={(d) => d.isAfter(dayjs().endOf('day'))}
              presets={[
                { label: t('export.presets.today'), value: () => [dayjs().startOf('day'), dayjs()] },
                {
                  label: t('export.presets.yesterday'),
                  value: () => [dayjs().subtract(1, 'day').startOf('day'), dayjs().startOf('day')],
                },
                { label: t('export.presets.last7'), value: () => [dayjs().subtract(7, 'day'), dayjs()] },
              ]}
              onChange={(value) => {
                setRange(value?.[0] && value[1] ? [value[0], value[1]] : null);
                clearShown('time');
              }}
            />
          </div>
        </Form.Item>
        <Form.Item label={t('export.site')} validateStatus={siteState.status} help={siteState.help}>
          <Select
            data-testid="export-site"
            placeholder={t('export.sitePlaceholder')}
            loading={sites.isLoading}
            disabled={siteState.disabled}
            value={siteId ?? undefined}
            showSearch={{ optionFilterProp: 'label' }}
            notFoundContent={t('export.noSites')}
            options={(sites.data ?? []).map((s) => ({ value: s.id, label: `${s.code} ${s.name}` }))}
            onChange={(value: number) => {
              setSiteId(value);
              setDeviceIds([]);
              clearShown('siteId');
            }}
          />
        </Form.Item>
        <Form.Item label={t('export.type')} validateStatus={typeState.status} help={typeState.help}>
          <Radio.Group
            data-testid="export-type"
            disabled={typeState.disabled}
            value={type}
            optionType="button"
            options={EXPORT_TYPES.map((value) => ({ value, label: t(`export.types.${value}`) }))}
            onChange={(e) => {
              setType(e.target.value as ExportType);
              setItems([]);
              clearShown('type');
            }}
          />
        </Form.Item>
        <Form.Item
          label={t('export.devices', { max: EXPORT_MAX_ENTRIES })}
          validateStatus={devicesState.status}
          help={devicesState.help}
        >
          <Select
            data-testid="export-devices"
            mode="multiple"
            placeholder={t('export.devicesPlaceholder')}
            loading={devices.isLoading}
            disabled={devicesState.disabled}
            value={deviceIds}
            optionFilterProp="label"
            options={(devices.data ?? []).map((d) => ({
              value: d.id,
              label: `${d.sn} · ${typeLabel(t, d.type)}`,
            }))}
            onChange={(value: number[]) => {
              setDeviceIds(value);
              clearShown('deviceIds');
            }}
          />
        </Form.Item>
        <Form.Item label={t('export.items')} validateStatus={itemsState.status} help={itemsState.help}>
          <Space.Compact className="export-form__items">
            <Select
              data-testid="export-items"
              mode="multiple"
              placeholder={t('export.itemsPlaceholder')}
              disabled={itemsState.disabled}
              value={items}
              optionFilterProp="label"
              maxTagCount="responsive"
              options={itemOptions}
              onChange={(value: string[]) => {
                setItems(value);
                clearShown('items');
              }}
            />
            <Button
              data-testid="export-items-all"
              disabled={itemsState.disabled}
              onClick={() => {
                setItems(itemOptions.map((o) => o.value));
                clearShown('items');
              }}
            >
              {t('export.selectAll')}
            </Button>
          </Space.Compact>
        </Form.Item>
        <Space wrap>
          <Button type="primary" data-testid="export-submit" loading={progress !== null} onClick={onExport}>
            {t('export.submit')}
          </Button>
          {progress !== null && (
            <Button data-testid="export-cancel" onClick={() => abort.current?.abort()}>
              {t('export.cancel')}
            </Button>
          )}
        </Space>
      </Form>
      {progress !== null && (
        <div className="export-progress" data-testid="export-progress" aria-live="polite">
          <Progress percent={100} status="active" showInfo={false} />
          <Typography.Text>
            {progress.rows === null
              ? t('export.preparing')
              : t('export.receiving', {
                  size: formatBytes(progress.bytes),
                  rows: formatNumber(progress.rows, 0),
                })}
          </Typography.Text>
        </div>
      )}
      {done && (
        <Typography.Paragraph className="export-done" data-testid="export-done">
          {t('export.savedAs', { name: done.fileName, rows: formatNumber(done.rows ?? 0, 0) })}
        </Typography.Paragraph>
      )}
    </div>
  );
}
