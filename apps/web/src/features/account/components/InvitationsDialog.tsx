/**
 * Company invitations (user info `invitations`; docs/api.md "Adding an existing account"): a
 * company outside the account's own added it as an employee, and it joins that company only if
 * the user accepts here. Each invitation shows the company with "accept" and "decline"; an
 * answer updates the session's company list and invitations (the company is offered at the
 * next sign-in's company pick) and says what happened. The dialog closes by itself once no
 * invitation is left.
 * Test hooks: `invitations-dialog`, `invitation-<companyId>`, `invitation-accept-<companyId>`,
 * `invitation-decline-<companyId>`.
 */
import type { Invitation, InvitationAnswer } from '@ess/contract';
import { Button, List, Modal } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DIALOG_WIDTH_PX } from '@/shared/config';
import { showSuccess } from '@/shared/feedback';
import { answerInvitation } from '../api';

export interface InvitationsDialogProps {
  open: boolean;
  /** The signed-in user's pending invitations (user info). */
  invitations: readonly Invitation[];
  /** After an answer: the company pick and the invitations still open, for the session. */
  onAnswered: (answer: InvitationAnswer) => void;
  onClose: () => void;
}

/** Controlled by `open`; lists `invitations` with accept / decline. */
export function InvitationsDialog({ open, invitations, onAnswered, onClose }: InvitationsDialogProps) {
  const { t } = useTranslation();
  /** The company whose invitation is being answered. */
  const [busy, setBusy] = useState<number | null>(null);

  const answer = async (invitation: Invitation, accept: boolean) => {
    setBusy(invitation.companyId);
    try {
      const next = await answerInvitation(invitation.companyId, accept);
      onAnswered(next);
      showSuccess(
        t(accept ? 'invitations.accepted' : 'invitations.declined', { company: invitation.companyName }),
      );
      if (next.invitations.length === 0) onClose();
    } catch {
      // the request client showed the message
    } finally {
      setBusy(null);
    }
  };

  return (
    <Modal
      open={open}
      title={t('invitations.title')}
      width={DIALOG_WIDTH_PX}
      footer={null}
      onCancel={onClose}
      destroyOnHidden
    >
      <div data-testid="invitations-dialog">
        <p>{t('invitations.hint')}</p>
        <List
          dataSource={[...invitations]}
          locale={{ emptyText: t('invitations.empty') }}
          rowKey="companyId"
          renderItem={(invitation) => (
            <List.Item
              data-testid={`invitation-${invitation.companyId}`}
              actions={[
                <Button
                  key="decline"
                  disabled={busy !== null}
                  onClick={() => void answer(invitation, false)}
                  data-testid={`invitation-decline-${invitation.companyId}`}
                >
                  {t('invitations.decline')}
                </Button>,
                <Button
                  key="accept"
                  type="primary"
                  loading={busy === invitation.companyId}
                  disabled={busy !== null && busy !== invitation.companyId}
                  onClick={() => void answer(invitation, true)}
                  data-testid={`invitation-accept-${invitation.companyId}`}
                >
                  {t('invitations.accept')}
                </Button>,
              ]}
            >
              {invitation.companyName}
            </List.Item>
          )}
        />
      </div>
    </Modal>
  );
}
