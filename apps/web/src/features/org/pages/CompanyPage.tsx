/**
 * Partner companies (spec §1): one screen per kind — agents `org/agent/index`,
 * investors `org/investor/index`, construction parties `org/construction/index`, users and
 * companies `org/owner/index` — built from {@link CompanyPage} with its kind. The kind's title,
 * the table of its companies, the add / edit dialog and, for agents, device assignment.
 * Buttons follow the permissions `org:<kind>:save|status` and `org:agent:assign`.
 * Test hooks: `company-page` (with `data-kind`), `company-title` (and those of the components).
 */
import type { CompanyKind, CompanyRow } from '@ess/contract';
import { Perm } from '@ess/contract';
import { Card } from 'antd';
import { type ComponentType, useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { usePermission } from '@/features/auth';
import { KIND_PERMS } from '../api';
import { AgentDevicesDialog } from '../components/AgentDevicesDialog';
import { CompanyDialog } from '../components/CompanyDialog';
import { CompanyTable } from '../components/CompanyTable';
import '../org.css';

/** The companies of one kind; see the module comment. */
export function CompanyPage({ kind }: { kind: CompanyKind }) {
  const { t } = useTranslation();
  const canSave = usePermission(KIND_PERMS[kind].save);
  const canStatus = usePermission(KIND_PERMS[kind].status);
  const canAssign = usePermission(Perm.agentAssign);
  const [dialog, setDialog] = useState<{ open: boolean; company: CompanyRow | null }>({
    open: false,
    company: null,
  });
  const [assigning, setAssigning] = useState<CompanyRow | null>(null);

  const onEdit = useCallback((company: CompanyRow) => setDialog({ open: true, company }), []);

  return (
    <Card variant="borderless" className="company-page" data-testid="company-page" data-kind={kind}>
      <h2 className="company-page__title" data-testid="company-title">
        {t(`org.kind.${kind}`)}
      </h2>
      <CompanyTable
        kind={kind}
        canStatus={canStatus}
        canAssign={canAssign}
        onAdd={canSave ? () => setDialog({ open: true, company: null }) : null}
        onEdit={canSave ? onEdit : null}
        onAssign={setAssigning}
      />
      <CompanyDialog
        kind={kind}
        open={dialog.open}
        company={dialog.company}
        onClose={() => setDialog((d) => ({ ...d, open: false }))}
      />
      {kind === 'agent' && <AgentDevicesDialog agent={assigning} onClose={() => setAssigning(null)} />}
    </Card>
  );
}

/** The view of each kind, for the view registry. */
export const companyViews: Record<CompanyKind, ComponentType> = {
  agent: () => <CompanyPage kind="agent" />,
  investor: () => <CompanyPage kind="investor" />,
  construction: () => <CompanyPage kind="construction" />,
  owner: () => <CompanyPage kind="owner" />,
};
