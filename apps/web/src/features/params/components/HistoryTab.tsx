/**
 * The history of a device's parameters (`params/history`, newest first, paged by the server):
 * when (the site's zone), who (the device itself for a local change), the source (operator,
 * copy, initialization, device), the parameter's label, old → new with units, the device's
 * answer (applied / refused / timeout, or "waiting") and the reason. Read again whenever a
 * delivery change of the device arrives (the page invalidates `paramsKeys.history`).
 * Test hooks: `params-history` (the table), rows `data-row-key` = change id.
 */
import { type DeviceType, type ParamChangeRow, paramDef } from '@ess/contract';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Grid, type TableColumnsType, Tag } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '@/shared/format';
import { currentLang } from '@/shared/i18n';
import { DataTable } from '@/shared/ui/DataTable';
import type { ListPage } from '@/shared/ui/serverPagination';
import { fetchHistory, paramsKeys } from '../api';
import { formatParamValue, OUTCOME_COLORS } from '../model';
import { msOf } from './ParamForm';

export function HistoryTab({
  deviceId,
  type,
  timeZone,
}: {
  deviceId: number;
  type: DeviceType;
  timeZone: string;
}) {
  const { t } = useTranslation();
  const lang = currentLang();
  const [page, setPage] = useState<ListPage>({ pageNum: 1, pageSize: 20 });
  const query = useQuery({
    queryKey: [...paramsKeys.history(deviceId), page.pageNum, page.pageSize],
    queryFn: () => fetchHistory(deviceId, page.pageNum, page.pageSize),
    placeholderData: keepPreviousData,
  });
  // A phone: the change under the parameter, the answer under the time.
  const stacked = !(Grid.useBreakpoint().md ?? true);

  const change = (r: ParamChangeRow) => {
    const def = paramDef(type, r.key);
    return (
      <span className="params-history__change">
        <span className="params-muted">{formatParamValue(def, r.oldValue, lang)}</span>
        {' → '}
        <strong>{formatParamValue(def, r.newValue, lang)}</strong>
      </span>
    );
  };
  const outcome = (r: ParamChangeRow) => (
    <span className="params-history__outcome">
      {r.outcome ? (
        <Tag color={OUTCOME_COLORS[r.outcome]}>{t(`params.history.outcomes.${r.outcome}`)}</Tag>
      ) : (
        <Tag>{t('params.history.outcomes.none')}</Tag>
      )}
      {r.reason && <span className="params-state__reason">{r.reason}</span>}
    </span>
  );
  const when = (r: ParamChangeRow) => (
    <span className="params-history__when">
      <span>{formatDateTime(msOf(r.at), timeZone)}</span>
      <span className="params-muted">
        {r.by ?? t('params.history.device')} · {t(`params.history.sources.${r.source}`)}
      </span>
    </span>
  );
  const label = (r: ParamChangeRow) => (
    <span className="params-history__param">
      <span>{paramDef(type, r.key)?.label[lang] ?? r.key}</span>
      <span className="params-muted">v{r.version}</span>
    </span>
  );

  const columns: TableColumnsType<ParamChangeRow> = stacked
    ? [
        {
          key: 'what',
          title: t('params.history.param'),
          render: (_, r) => (
            <span className="params-history__stack">
              {label(r)}
              {change(r)}
            </span>
          ),
        },
        {
          key: 'when',
          title: t('params.history.at'),
          render: (_, r) => (
            <span className="params-history__stack">
              {when(r)}
              {outcome(r)}
            </span>
          ),
        },
      ]
    : [
        { key: 'at', title: t('params.history.at'), render: (_, r) => when(r), width: 210 },
        { key: 'param', title: t('params.history.param'), render: (_, r) => label(r) },
        { key: 'change', title: t('params.history.change'), render: (_, r) => change(r) },
        { key: 'outcome', title: t('params.history.outcome'), render: (_, r) => outcome(r) },
      ];

  return (
    <DataTable<ParamChangeRow>
      query={query}
      page={page}
      setPage={setPage}
      totalText={(n) => t('params.history.total', { count: n })}
      emptyText={t('params.history.empty')}
      columns={columns}
      scroll={stacked ? undefined : { x: 'max-content' }}
      testId="params-history"
    />
  );
}
