/**
 * The alarm page's filter bar: site, device (of the chosen site), level, acknowledged, and on
 * the history tab event type and alarm state; keyword and time range; then the tab's actions
 * (`children`). A change goes to `onFilter` at once (the keyword on search, or when emptied).
 * Test hooks: `alarm-filter-{site,device,level,ack,keyword,range,type,state}`.
 */
import { ALARM_EVENT_TYPES, type AlarmEventType, type AlarmFilterOptions } from '@ess/contract';
import { DatePicker, Input, Select, Space } from 'antd';
import type { Dayjs } from 'dayjs';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';

/** The filters of both tabs; `types` and `state` apply to the history only. */
export interface AlarmFilterValues {
  siteId?: number;
  deviceId?: number;
  level?: 'warning' | 'fault';
  acknowledged?: boolean;
  keyword?: string;
  range?: { startMs: number; endMs: number };
  types?: AlarmEventType[];
  state?: 'active' | 'cleared';
}

type Range = [Dayjs | null, Dayjs | null] | null;

export function AlarmFilters({
  tab,
  filters,
  onFilter,
  options,
  children,
}: {
  tab: 'active' | 'history';
  filters: AlarmFilterValues;
  onFilter: (next: Partial<AlarmFilterValues>) => void;
  options: AlarmFilterOptions | undefined;
  /** The tab's actions, right of the filters. */
  children: ReactNode;
}) {
  const { t } = useTranslation();
  const [keywordText, setKeywordText] = useState('');
  const [range, setRange] = useState<Range>(null);
  const devices = options?.sites.find((s) => s.id === filters.siteId)?.devices ?? [];
  return (
    <div className="alarm-page__filters">
      <Select
        allowClear
        showSearch
        optionFilterProp="label"
        className="alarm-filter alarm-filter--site"
        placeholder={t('alarm.filter.site')}
        value={filters.siteId}
        onChange={(v?: number) => onFilter({ siteId: v, deviceId: undefined })}
        options={options?.sites.map((s) => ({ value: s.id, label: s.name }))}
        data-testid="alarm-filter-site"
      />
      <Select
        allowClear
        showSearch
        optionFilterProp="label"
        className="alarm-filter"
        placeholder={t('alarm.filter.device')}
        disabled={filters.siteId === undefined}
        value={filters.deviceId}
        onChange={(v?: number) => onFilter({ deviceId: v })}
        options={devices.map((d) => ({ value: d.id, label: `${d.sn} (${d.type.toUpperCase()})` }))}
        data-testid="alarm-filter-device"
      />
      <Select
        allowClear
        className="alarm-filter alarm-filter--narrow"
        placeholder={t('alarm.filter.level')}
        value={filters.level}
        onChange={(v?: 'warning' | 'fault') => onFilter({ level: v })}
        options={[
          { value: 'fault', label: t('alarm.level.fault') },
          { value: 'warning', label: t('alarm.level.warning') },
        ]}
        data-testid="alarm-filter-level"
      />
      <Select
        allowClear
        className="alarm-filter alarm-filter--narrow"
        placeholder={t('alarm.filter.ack')}
        value={filters.acknowledged === undefined ? undefined : String(filters.acknowledged)}
        onChange={(v?: string) => onFilter({ acknowledged: v === undefined ? undefined : v === 'true' })}
        options={[
          { value: 'false', label: t('alarm.filter.notAcked') },
          { value: 'true', label: t('alarm.filter.acked') },
        ]}
        data-testid="alarm-filter-ack"
      />
      {tab === 'history' && (
        <>
          <Select
            allowClear
            mode="multiple"
            className="alarm-filter alarm-filter--types"
            placeholder={t('alarm.filter.type')}
            value={filters.types ?? []}
            onChange={(v: AlarmEventType[]) => onFilter({ types: v.length ? v : undefined })}
            options={ALARM_EVENT_TYPES.map((e) => ({ value: e, label: t(`alarm.event.${e}`) }))}
            data-testid="alarm-filter-type"
          />
          <Select
            allowClear
            className="alarm-filter alarm-filter--narrow"
            placeholder={t('alarm.filter.state')}
            value={filters.state}
            onChange={(v?: 'active' | 'cleared') => onFilter({ state: v })}
            options={[
              { value: 'active', label: t('alarm.state.active') },
              { value: 'cleared', label: t('alarm.state.cleared') },
            ]}
            data-testid="alarm-filter-state"
          />
        </>
      )}
      <Input.Search
        allowClear
        className="alarm-filter alarm-filter--keyword"
        placeholder={t('alarm.filter.keyword')}
        value={keywordText}
        onChange={(e) => {
          setKeywordText(e.target.value);
          if (!e.target.value) onFilter({ keyword: undefined });
        }}
        onSearch={(v) => onFilter({ keyword: v.trim() || undefined })}
        data-testid="alarm-filter-keyword"
      />
      <DatePicker.RangePicker
        showTime
        className="alarm-filter alarm-filter--range"
        value={range}
        onChange={(v) => {
          setRange(v);
          onFilter({
            range: v?.[0] && v[1] ? { startMs: v[0].valueOf(), endMs: v[1].valueOf() } : undefined,
          });
        }}
        data-testid="alarm-filter-range"
      />
      <Space className="alarm-page__actions">{children}</Space>
    </div>
  );
}
