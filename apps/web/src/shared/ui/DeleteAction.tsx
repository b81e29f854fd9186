/**
 * A table row's delete button: a small danger icon button with the "delete" tooltip behind a
 * confirmation (delete / cancel). With `blocked` the button is disabled and its tooltip says why.
 * The aria-label reads "<delete> <name>".
 */
import { DeleteOutlined } from '@ant-design/icons';
import { Button, Popconfirm, Tooltip } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

interface Props {
  /** The confirmation's title and text. */
  title: ReactNode;
  description: ReactNode;
  onConfirm: () => Promise<unknown>;
  /** Names the row in the aria-label. */
  name: string;
  testId: string;
  /** Test id of the confirmation's delete button. */
  okTestId?: string;
  /** Why the row cannot be deleted; disables the button. */
  blocked?: ReactNode;
}

export function DeleteAction({ title, description, onConfirm, name, testId, okTestId, blocked }: Props) {
  const { t } = useTranslation();
  const button = (disabled: boolean) => (
    <Button
      type="text"
      size="small"
      danger
      disabled={disabled}
      icon={<DeleteOutlined />}
      aria-label={`${t('common.delete')} ${name}`}
      data-testid={testId}
    />
  );
  if (blocked) return <Tooltip title={blocked}>{button(true)}</Tooltip>;
  return (
    <Popconfirm
      title={title}
      description={description}
      okText={t('common.delete')}
      okButtonProps={okTestId ? { danger: true, 'data-testid': okTestId } : { danger: true }}
      cancelText={t('common.cancel')}
      onConfirm={onConfirm}
    >
      <Tooltip title={t('common.delete')}>{button(false)}</Tooltip>
    </Popconfirm>
  );
}
