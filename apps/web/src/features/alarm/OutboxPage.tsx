/**
 * Monitoring → Mail outbox (`monitor/outbox/index`, permission `monitor:mail:list`): the alarm mails to employees of the caller's companies (platform administrators: all),
 * newest first, with their delivery state (queued, sent, failed — retried with backoff), attempts
 * and last error; a banner says when no SMTP server is configured (mails then stay queued here).
 * "View" opens a mail's subject and text. Filters: state, keyword (address or subject).
 * Test hooks: `outbox-page`, `outbox-smtp-off`, `outbox-filter-state`, `outbox-filter-keyword`,
 * `outbox-table` (rows `data-row-key` = mail id), `outbox-view-<id>`, `outbox-mail`,
 * `outbox-mail-body`, `outbox-refresh`.
 */
import { EyeOutlined } from '@ant-design/icons';
import { MAIL_STATES, type MailOutboxRow, type MailState } from '@ess/contract';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Descriptions, Drawer, Input, Select, type TableColumnsType, Tag } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DIALOG_WIDTH_PX } from '@/shared/config';
import { formatDateTime, NO_VALUE } from '@/shared/format';
import { DataTable } from '@/shared/ui/DataTable';
import { RefreshButton } from '@/shared/ui/ListToolbar';
import { alarmKeys, fetchOutbox, fetchOutboxDetail, type OutboxQuery } from './api';
import './alarm.css';

const STATE_COLOR: Record<MailState, string> = { queued: 'blue', sent: 'green', failed: 'red' };

function StateTag({ state }: { state: MailState }) {
  const { t } = useTranslation();
  return (
    <Tag color={STATE_COLOR[state]} data-state={state}>
      {t(`outbox.state.${state}`)}
    </Tag>
  );
}

function MailDrawer({ id, onClose }: { id: number | null; onClose: () => void }) {
  const { t } = useTranslation();
  const mail = useQuery({
    queryKey: alarmKeys.mail(id ?? 0),
    queryFn: () => fetchOutboxDetail(id!),
    enabled: id !== null,
  });
  const m = mail.data;
  return (
    <Drawer
      open={id !== null}
      onClose={onClose}
      title={m?.subject ?? ''}
      size={`min(${DIALOG_WIDTH_PX}px, 100vw)`}
      destroyOnHidden
    >
      {m && (
        <div data-testid="outbox-mail">
          <Descriptions
            size="small"
            column={1}
            bordered
            items={[
              {
                key: 'to',
                label: t('outbox.field.to'),
                children: `${m.recipientName ?? ''} <${m.toAddress}>`,
              },
              { key: 'state', label: t('outbox.field.state'), children: <StateTag state={m.state} /> },
              { key: 'created', label: t('outbox.field.createdAt'), children: formatDateTime(m.createdAt) },
              { key: 'sent', label: t('outbox.field.sentAt'), children: formatDateTime(m.sentAt) },
              { key: 'attempts', label: t('outbox.field.attempts'), children: m.attempts },
              { key: 'error', label: t('outbox.field.lastError'), children: m.lastError ?? NO_VALUE },
            ]}
          />
          <pre className="outbox-mail__body" data-testid="outbox-mail-body">
            {m.body}
          </pre>
        </div>
      )}
    </Drawer>
  );
}

/** The outbox view. */
export default function OutboxPage() {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const [state, setState] = useState<MailState | undefined>();
  const [keyword, setKeyword] = useState<string | undefined>();
  const [keywordText, setKeywordText] = useState('');
  const [page, setPage] = useState({ pageNum: 1, pageSize: 20 });
  const [open, setOpen] = useState<number | null>(null);
  const q: OutboxQuery = { ...page, ...(state ? { state } : {}), ...(keyword ? { keyword } : {}) };
  const list = useQuery({
    queryKey: alarmKeys.outbox(q),
    queryFn: () => fetchOutbox(q),
    placeholderData: keepPreviousData,
  });

  // biome-ignore lint/correctness/useExhaustiveDependencies: texts depend on the language
  const columns = useMemo<TableColumnsType<MailOutboxRow>>(
    () => [
      { key: 'created', title: t('outbox.field.createdAt'), render: (_, r) => formatDateTime(r.createdAt) },
      {
        key: 'to',
        title: t('outbox.field.to'),
        render: (_, r) => (
          <span className="outbox-to">
            <span>{r.recipientName ?? NO_VALUE}</span>
            <code>{r.toAddress}</code>
          </span>
        ),
      },
      { key: 'company', title: t('outbox.field.company'), dataIndex: 'companyName' },
      { key: 'subject', title: t('outbox.field.subject'), dataIndex: 'subject' },
      { key: 'alarms', title: t('outbox.field.alarms'), dataIndex: 'alarmCount' },
      { key: 'state', title: t('outbox.field.state'), render: (_, r) => <StateTag state={r.state} /> },
      { key: 'attempts', title: t('outbox.field.attempts'), dataIndex: 'attempts' },
      {
        key: 'delivery',
        title: t('outbox.field.delivery'),
        render: (_, r) =>
          r.state === 'sent' ? (
            formatDateTime(r.sentAt)
          ) : (
            <span className="outbox-delivery">
              {r.lastError && <span className="outbox-delivery__error">{r.lastError}</span>}
              {r.nextAttemptAt !== null && list.data?.smtpConfigured && (
                <span>{t('outbox.nextAttempt', { time: formatDateTime(r.nextAttemptAt) })}</span>
              )}
            </span>
          ),
      },
      {
        key: 'view',
        title: '',
        fixed: 'right',
        render: (_, r) => (
          <Button
            type="link"
            size="small"
            icon={<EyeOutlined />}
            onClick={() => setOpen(r.id)}
            data-testid={`outbox-view-${r.id}`}
          >
            {t('outbox.view')}
          </Button>
        ),
      },
    ],
    [i18n.language, list.data?.smtpConfigured],
  );

  return (
    <Card variant="borderless" className="outbox-page" data-testid="outbox-page">
      {list.data && !list.data.smtpConfigured && (
        <Alert
          type="info"
          showIcon
          className="outbox-page__banner"
          title={t('outbox.smtpOff')}
          data-testid="outbox-smtp-off"
        />
      )}
      <div className="alarm-page__filters">
        <Select
          allowClear
          className="alarm-filter alarm-filter--narrow"
          placeholder={t('outbox.field.state')}
          value={state}
          onChange={(v?: MailState) => {
            setState(v);
            setPage((p) => ({ ...p, pageNum: 1 }));
          }}
          options={MAIL_STATES.map((s) => ({ value: s, label: t(`outbox.state.${s}`) }))}
          data-testid="outbox-filter-state"
        />
        <Input.Search
          allowClear
          className="alarm-filter alarm-filter--keyword"
          placeholder={t('outbox.keyword')}
          value={keywordText}
          onChange={(e) => {
            setKeywordText(e.target.value);
            if (!e.target.value) setKeyword(undefined);
          }}
          onSearch={(v) => {
            setKeyword(v.trim() || undefined);
            setPage((p) => ({ ...p, pageNum: 1 }));
          }}
          data-testid="outbox-filter-keyword"
        />
        <div className="alarm-page__actions">
          <RefreshButton
            onClick={() => void queryClient.invalidateQueries({ queryKey: ['alarm', 'outbox'] })}
            loading={list.isFetching}
            testId="outbox-refresh"
          />
        </div>
      </div>
      <DataTable<MailOutboxRow>
        columns={columns}
        query={list}
        page={page}
        setPage={setPage}
        totalText={(n) => t('alarm.total', { count: n })}
        emptyText={t('outbox.empty')}
        testId="outbox-table"
      />
      <MailDrawer id={open} onClose={() => setOpen(null)} />
    </Card>
  );
}
