/**
 * One operation log entry in a drawer: when, who, company, action, target, result, address, and
 * the target's value before → after as formatted JSON side by side (stacked on narrow screens).
 * Secrets appear as the server masked them ('******').
 * Test hooks: `oplog-drawer`, `oplog-before`, `oplog-after`.
 */
import { auditActionLabel, auditTargetLabel, type OperationLogRow } from '@ess/contract';
import { Descriptions, Drawer } from 'antd';
import { useTranslation } from 'react-i18next';
import { DIALOG_WIDTH_PX } from '@/shared/config';
import { formatDateTime, NO_VALUE } from '@/shared/format';
import { currentLang } from '@/shared/i18n';
import { LogResult } from './LogResult';

function Json({ value, testId, title }: { value: unknown; testId: string; title: string }) {
  return (
    <section className="oplog-json">
      <h4 className="oplog-json__title">{title}</h4>
      <pre className="oplog-json__body" data-testid={testId}>
        {value === null || value === undefined ? NO_VALUE : JSON.stringify(value, null, 2)}
      </pre>
    </section>
  );
}

interface Props {
  entry: OperationLogRow | null;
  open: boolean;
  onClose: () => void;
}

/** The entry drawer; see the module comment. */
export function LogDetailDrawer({ entry, open, onClose }: Props) {
  const { t } = useTranslation();
  const lang = currentLang();
  return (
    <Drawer
      open={open}
      onClose={onClose}
      title={entry ? auditActionLabel(entry.action, lang) : ''}
      size={`min(${DIALOG_WIDTH_PX}px, 100vw)`}
      className="oplog-drawer"
      destroyOnHidden
    >
      {entry && (
        <div data-testid="oplog-drawer">
          <Descriptions
            size="small"
            column={{ xs: 1, sm: 2 }}
            bordered
            className="oplog-drawer__facts"
            items={[
              { key: 'ts', label: t('oplog.field.time'), children: formatDateTime(Date.parse(entry.ts)) },
              {
                key: 'operator',
                label: t('oplog.field.operator'),
                children: [entry.account, entry.operatorName].filter(Boolean).join(' · ') || NO_VALUE,
              },
              { key: 'company', label: t('oplog.field.company'), children: entry.companyName ?? NO_VALUE },
              {
                key: 'action',
                label: t('oplog.field.action'),
                children: (
                  <>
                    {auditActionLabel(entry.action, lang)} <code>{entry.action}</code>
                  </>
                ),
              },
              {
                key: 'target',
                label: t('oplog.field.target'),
                children: entry.targetType
                  ? `${auditTargetLabel(entry.targetType, lang)}${entry.targetId ? ` #${entry.targetId}` : ''}`
                  : NO_VALUE,
              },
              { key: 'result', label: t('oplog.field.result'), children: <LogResult code={entry.code} /> },
              { key: 'ip', label: t('oplog.field.ip'), children: entry.ip ?? NO_VALUE },
            ]}
          />
          <div className="oplog-drawer__change">
            <Json value={entry.before} testId="oplog-before" title={t('oplog.before')} />
            <Json value={entry.after} testId="oplog-after" title={t('oplog.after')} />
          </div>
        </div>
      )}
    </Drawer>
  );
}
