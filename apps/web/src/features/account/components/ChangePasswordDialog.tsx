/**
 * Change-password dialog (spec §4, §5): 700 px; old, new and confirm password, each with a
 * show/hide toggle, checked on blur (required; new ≥ 6 characters; confirm equal to new).
 * Sends SHA-256 hex of each; on failure the server's msg is shown and the dialog stays; on
 * success "修改成功" / "Modified successfully" and the dialog closes.
 * Forced mode (`forced`: the password was set by an administrator, `mustChangePassword`): no
 * close button and no cancel, Escape and the backdrop do nothing; a note says why, and a
 * log-out link replaces cancel. Only a successful change closes it.
 * Test hooks: `password-dialog`, `password-old`, `password-new`, `password-confirm`,
 * `password-submit`; forced mode `password-forced-note`, `password-logout`.
 */
import { Alert, Button, Form, Input, Modal } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DIALOG_WIDTH_PX } from '@/shared/config';
import { showSuccess } from '@/shared/feedback';
import { confirmRules, passwordRules } from '@/shared/forms/passwordRules';
import { validationText } from '@/shared/i18n';
import { updatePassword } from '../api';
import './account.css';

interface PasswordForm {
  oldPassword: string;
  newPassword: string;
  confirmPassword: string;
}

const reject = (text: string) => Promise.reject(new Error(text));

interface ChangePasswordDialogProps {
  open: boolean;
  /** After success; also on cancel or close unless `forced`. */
  onClose: () => void;
  /** Forced mode (see module doc); `onLogout` is the log-out link's action. */
  forced?: { onLogout: () => void };
}

/** Controlled by `open`; `onClose` on cancel and after success (only after success when forced). */
export function ChangePasswordDialog({ open, onClose, forced }: ChangePasswordDialogProps) {
  const { t } = useTranslation();
  const [form] = Form.useForm<PasswordForm>();
  const [busy, setBusy] = useState(false);

  const submit = async () => {
    let values: PasswordForm;
    try {
      values = await form.validateFields();
    } catch {
      return;
    }
    setBusy(true);
    try {
      await updatePassword(values);
      showSuccess(t('account.passwordChanged'));
      onClose();
    } catch {
      // server msg already shown
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      open={open}
      title={t('account.passwordTitle')}
      width={DIALOG_WIDTH_PX}
      okText={t('common.ok')}
      cancelText={t('common.cancel')}
      confirmLoading={busy}
      onOk={() => void submit()}
      onCancel={forced ? undefined : onClose}
      closable={!forced}
      keyboard={!forced}
      mask={{ closable: !forced }}
      afterClose={() => form.resetFields()}
      destroyOnHidden
      okButtonProps={{ 'data-testid': 'password-submit' }}
      footer={
        forced
          ? (_, { OkBtn }) => (
              <div className="account-forced-footer">
                <Button type="link" onClick={forced.onLogout} data-testid="password-logout">
                  {t('navbar.logout')}
                </Button>
                <OkBtn />
              </div>
            )
          : undefined
      }
    >
      <div data-testid="password-dialog">
        {forced && (
          <Alert
            type="warning"
            showIcon
            title={t('account.forcedNote')}
            className="account-forced-note"
            data-testid="password-forced-note"
          />
        )}
        <Form<PasswordForm>
          form={form}
          layout="vertical"
          validateTrigger="onBlur"
          onFinish={() => void submit()}
          className="account-form"
        >
          <Form.Item<PasswordForm>
            name="oldPassword"
            label={t('account.oldPassword')}
            rules={[
              {
                required: true,
                validator: (_, v: string | undefined) =>
                  v ? Promise.resolve() : reject(validationText('oldPasswordRequired')),
              },
            ]}
          >
            <Input.Password autoComplete="current-password" data-testid="password-old" />
          </Form.Item>
          <Form.Item<PasswordForm>
            name="newPassword"
            label={t('account.newPassword')}
            rules={passwordRules()}
          >
            <Input.Password autoComplete="new-password" data-testid="password-new" />
          </Form.Item>
          <Form.Item<PasswordForm>
            name="confirmPassword"
            label={t('account.confirmPassword')}
            dependencies={['newPassword']}
            rules={confirmRules('newPassword')}
          >
            <Input.Password autoComplete="new-password" data-testid="password-confirm" />
          </Form.Item>
          <button type="submit" hidden aria-hidden="true" tabIndex={-1} />
        </Form>
      </div>
    </Modal>
  );
}
