/**
 * The shell of a form dialog: a Modal of the console's dialog width with save (or `okText`) and
 * cancel, the spinner on the OK button while `saving`, the form reset after closing, content
 * destroyed while hidden, and test ids on the content (`testId`) and the OK button
 * (`submitTestId`). The caller validates and saves in `onOk`.
 */
import { type FormInstance, Modal } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { DIALOG_WIDTH_PX } from '@/shared/config';

interface Props {
  open: boolean;
  title: ReactNode;
  // biome-ignore lint/suspicious/noExplicitAny: any form's values
  form: FormInstance<any>;
  saving: boolean;
  onOk: () => unknown;
  onCancel: () => void;
  testId: string;
  submitTestId: string;
  /** The OK button's text; "save" when omitted. */
  okText?: ReactNode;
  /** Disables the OK button (e.g. while the dialog loads its data). */
  okDisabled?: boolean;
  children: ReactNode;
}

export function FormDialog({
  open,
  title,
  form,
  saving,
  onOk,
  onCancel,
  testId,
  submitTestId,
  okText,
  okDisabled,
  children,
}: Props) {
  const { t } = useTranslation();
  return (
    <Modal
      open={open}
      title={title}
      width={DIALOG_WIDTH_PX}
      okText={okText ?? t('common.save')}
      cancelText={t('common.cancel')}
      confirmLoading={saving}
      onOk={() => void onOk()}
      onCancel={onCancel}
      afterClose={() => form.resetFields()}
      destroyOnHidden
      okButtonProps={{ disabled: okDisabled, 'data-testid': submitTestId }}
    >
      <div data-testid={testId}>{children}</div>
    </Modal>
  );
}
