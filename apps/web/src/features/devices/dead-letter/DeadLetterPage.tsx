/**
 * Monitoring → Dead letters (`monitor/deadletter/index`, permission `monitor:deadletter:list`;
 * docs/device-protocol.md "Dead letters"): device messages the database refused for a reason in
 * their data, stored apart so that the rest of the ingest went on — newest first, in the
 * caller's companies (platform administrators: all). Each row: when it arrived (in its site's
 * time zone, named; UTC when the site is gone), gateway and device SN, site, kind, the
 * database's error and SQLSTATE; expanding a row shows the message as received (JSON). The
 * pagination's total is the number of dead letters matching the filters.
 * Filters: kind, keyword (gateway or device SN).
 * Test hooks: `dead-letter-page`, `dead-letter-filter-kind`, `dead-letter-filter-keyword`,
 * `dead-letter-table` (rows `data-row-key` = id), `dead-letter-payload-<id>`, `dead-letter-refresh`.
 */
import { DEAD_LETTER_KINDS, type DeadLetterKind, type DeadLetterRow } from '@ess/contract';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { Card, type TableColumnsType, Tag } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDateTime, NO_VALUE } from '@/shared/format';
import { DataTable } from '@/shared/ui/DataTable';
import { ListToolbar } from '@/shared/ui/ListToolbar';
import { type DeadLetterQuery, deadLetterKeys, fetchDeadLetters } from './api';
import './dead-letter.css';

/** The payload pretty-printed when it is JSON, else as stored. */
function prettyPayload(payload: string): string {
  try {
    return JSON.stringify(JSON.parse(payload), null, 2);
  } catch {
    return payload;
  }
}

/** The dead-letter view. */
export default function DeadLetterPage() {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const [kind, setKind] = useState<DeadLetterKind | undefined>();
  const [keyword, setKeyword] = useState<string | undefined>();
  const [page, setPage] = useState({ pageNum: 1, pageSize: 20 });
  const q: DeadLetterQuery = { ...page, ...(kind ? { kind } : {}), ...(keyword ? { keyword } : {}) };
  const list = useQuery({
    queryKey: deadLetterKeys.list(q),
    queryFn: () => fetchDeadLetters(q),
    placeholderData: keepPreviousData,
  });

  // biome-ignore lint/correctness/useExhaustiveDependencies: texts depend on the language
  const columns = useMemo<TableColumnsType<DeadLetterRow>>(
    () => [
      {
        key: 'receivedAt',
        title: t('deadLetter.field.receivedAt'),
        render: (_, r) => (
          <span className="dead-letter-time">
            <span>{formatDateTime(r.receivedAt, r.timezone ?? 'UTC')}</span>
            <span className="dead-letter-time__zone">{r.timezone ?? 'UTC'}</span>
          </span>
        ),
      },
      {
        key: 'gateway',
        title: t('deadLetter.field.gatewaySn'),
        render: (_, r) => <code>{r.gatewaySn}</code>,
      },
      {
        key: 'device',
        title: t('deadLetter.field.deviceSn'),
        render: (_, r) => (r.deviceSn ? <code>{r.deviceSn}</code> : NO_VALUE),
      },
      { key: 'site', title: t('deadLetter.field.site'), render: (_, r) => r.siteName ?? NO_VALUE },
      { key: 'company', title: t('deadLetter.field.company'), render: (_, r) => r.companyName ?? NO_VALUE },
      {
        key: 'kind',
        title: t('deadLetter.field.kind'),
        render: (_, r) => <Tag data-kind={r.kind}>{t(`deadLetter.kind.${r.kind}`)}</Tag>,
      },
      {
        key: 'error',
        title: t('deadLetter.field.error'),
        render: (_, r) => (
          <span className="dead-letter-error">
            <span>{r.error}</span>
            {r.errorCode && <code className="dead-letter-error__code">SQLSTATE {r.errorCode}</code>}
          </span>
        ),
      },
    ],
    [i18n.language],
  );

  return (
    <Card variant="borderless" className="dead-letter-page" data-testid="dead-letter-page">
      <p className="dead-letter-page__intro">{t('deadLetter.intro')}</p>
      <ListToolbar<DeadLetterKind>
        className="dead-letter-page__filters"
        keyword={{
          onSearch: (v) => {
            setKeyword(v || undefined);
            setPage((p) => ({ ...p, pageNum: 1 }));
          },
          placeholder: t('deadLetter.keyword'),
          className: 'dead-letter-filter dead-letter-filter--keyword',
          testId: 'dead-letter-filter-keyword',
        }}
        status={{
          value: kind,
          onChange: (v) => {
            setKind(v);
            setPage((p) => ({ ...p, pageNum: 1 }));
          },
          options: DEAD_LETTER_KINDS.map((k) => ({ value: k, label: t(`deadLetter.kind.${k}`) })),
          placeholder: t('deadLetter.field.kind'),
          ariaLabel: t('deadLetter.field.kind'),
          className: 'dead-letter-filter',
          testId: 'dead-letter-filter-kind',
        }}
        refresh={{
          onClick: () => void queryClient.invalidateQueries({ queryKey: deadLetterKeys.all }),
          loading: list.isFetching,
          testId: 'dead-letter-refresh',
        }}
      />
      <DataTable<DeadLetterRow>
        columns={columns}
        query={list}
        page={page}
        setPage={setPage}
        totalText={(n) => t('deadLetter.total', { count: n })}
        emptyText={t('deadLetter.empty')}
        testId="dead-letter-table"
        expandable={{
          expandedRowRender: (r) => (
            <div className="dead-letter-payload">
              <div className="dead-letter-payload__title">{t('deadLetter.field.payload')}</div>
              <pre data-testid={`dead-letter-payload-${r.id}`}>{prettyPayload(r.payload)}</pre>
            </div>
          ),
        }}
      />
    </Card>
  );
}
