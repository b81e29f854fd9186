/**
 * The actions cell of a table row: small icon buttons, each with its tooltip and an aria-label
 * "<label> <row name>". An action may be hidden (no permission), ask for a confirmation first
 * (`confirm`), be dangerous (red, the confirmation's OK red), or be blocked — disabled, its
 * tooltip saying why. A delete is `deleteAction(...)`: the same button as {@link DeleteAction}.
 */
import { DeleteOutlined } from '@ant-design/icons';
import { Button, Popconfirm, Tooltip } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

export interface RowAction {
  key: string;
  /** False hides the action (e.g. the user lacks the permission). Default true. */
  visible?: boolean;
  /** Tooltip, and the aria-label's first word(s). */
  label: string;
  /** Tooltip when it differs from `label`. */
  tooltip?: ReactNode;
  icon: ReactNode;
  /** `data-testid` of the button. */
  testId: string;
  onClick?: () => void;
  danger?: boolean;
  /** Ask first; `onConfirm` runs on OK. */
  confirm?: {
    title: ReactNode;
    description?: ReactNode;
    /** OK button text; default "OK". */
    okText?: string;
    /** `data-testid` of the OK button. */
    okTestId?: string;
    onConfirm: () => Promise<unknown>;
  };
  /** Why the action is not possible for this row: disables it, shown as its tooltip. */
  blocked?: ReactNode;
}

/**
 * The delete action of a row (confirmation with "delete" / "cancel", red), as {@link RowAction}.
 * `label` is the common "delete".
 */
export function deleteAction(
  label: string,
  a: Omit<RowAction, 'label' | 'icon' | 'danger' | 'confirm' | 'key' | 'onClick'> & {
    key?: string;
    title: ReactNode;
    description: ReactNode;
    onConfirm: () => Promise<unknown>;
    okTestId?: string;
  },
): RowAction {
  const { title, description, onConfirm, okTestId, key = 'delete', ...rest } = a;
  return {
    key,
    label,
    icon: <DeleteOutlined />,
    danger: true,
    confirm: { title, description, okText: label, okTestId, onConfirm },
    ...rest,
  };
}

/** The row's actions in a `<span className={className}>`; `name` names the row in aria-labels. */
export function RowActions({
  actions,
  name,
  className = 'row-actions',
}: {
  actions: RowAction[];
  name: string;
  className?: string;
}) {
  const { t } = useTranslation();
  return (
    <span className={className}>
      {actions
        .filter((a) => a.visible !== false)
        .map((a) => {
          const button = (disabled: boolean) => (
            <Button
              type="text"
              size="small"
              danger={a.danger}
              disabled={disabled}
              icon={a.icon}
              aria-label={`${a.label} ${name}`}
              onClick={a.confirm ? undefined : a.onClick}
              data-testid={a.testId}
            />
          );
          if (a.blocked) {
            return (
              <Tooltip key={a.key} title={a.blocked}>
                {button(true)}
              </Tooltip>
            );
          }
          if (a.confirm) {
            const ok = a.danger ? { danger: true } : {};
            return (
              <Popconfirm
                key={a.key}
                title={a.confirm.title}
                description={a.confirm.description}
                okText={a.confirm.okText ?? t('common.ok')}
                okButtonProps={a.confirm.okTestId ? { ...ok, 'data-testid': a.confirm.okTestId } : ok}
                cancelText={t('common.cancel')}
                onConfirm={a.confirm.onConfirm}
              >
                <Tooltip title={a.tooltip ?? a.label}>{button(false)}</Tooltip>
              </Popconfirm>
            );
          }
          return (
            <Tooltip key={a.key} title={a.tooltip ?? a.label}>
              {button(false)}
            </Tooltip>
          );
        })}
    </span>
  );
}
