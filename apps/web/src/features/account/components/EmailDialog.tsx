/**
 * E-mail subscription dialog (spec §4, §5): 700 px; opened by the caller only after
 * `employee/getEmail` succeeded, prefilled with its answer. E-mail required and valid (on blur);
 * alarm subscription Y/N required (on change). On success "操作成功" / "Operation successful"
 * and the dialog closes; on failure the server's msg is shown.
 * Test hooks: `email-dialog`, `email-input`, `email-sub-Y`, `email-sub-N`, `email-submit`.
 */
import { type EmailSettings, isValidEmail, type SubAlarm, TEXT_LIMITS } from '@ess/contract';
import { Form, Input, Modal, Radio } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DIALOG_WIDTH_PX } from '@/shared/config';
import { showSuccess } from '@/shared/feedback';
import { validationText } from '@/shared/i18n';
import { updateEmail } from '../api';

interface EmailForm {
  email: string;
  isSubAlarm: SubAlarm | undefined;
}

/** Open while `settings` (the `getEmail` answer) is not null; `onClose` clears it. */
export function EmailDialog({ settings, onClose }: { settings: EmailSettings | null; onClose: () => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<EmailForm>();
  const [busy, setBusy] = useState(false);

  const submit = async () => {
    let values: EmailForm;
    try {
      values = await form.validateFields();
    } catch {
      return;
    }
    if (!values.isSubAlarm) return;
    setBusy(true);
    try {
      await updateEmail(values.email, values.isSubAlarm);
      showSuccess(t('account.emailSaved'));
      onClose();
    } catch {
      // server msg already shown
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      open={settings !== null}
      title={t('account.emailTitle')}
      width={DIALOG_WIDTH_PX}
      okText={t('common.ok')}
      cancelText={t('common.cancel')}
      confirmLoading={busy}
      onOk={() => void submit()}
      onCancel={onClose}
      destroyOnHidden
      okButtonProps={{ 'data-testid': 'email-submit' }}
    >
      <div data-testid="email-dialog">
        {settings && (
          <Form<EmailForm>
            form={form}
            layout="vertical"
            initialValues={{ email: settings.email ?? '', isSubAlarm: settings.isSubAlarm }}
            onFinish={() => void submit()}
            className="account-form"
          >
            <Form.Item<EmailForm>
              name="email"
              label={t('account.email')}
              validateTrigger="onBlur"
              rules={[
                {
                  required: true,
                  validator: (_, v: string | undefined) => {
                    const email = (v ?? '').trim();
                    if (!email) return Promise.reject(new Error(validationText('emailRequired')));
                    if (!isValidEmail(email))
                      return Promise.reject(new Error(validationText('emailInvalid')));
                    return Promise.resolve();
                  },
                },
              ]}
            >
              <Input
                type="email"
                maxLength={TEXT_LIMITS.email}
                autoComplete="email"
                placeholder={t('account.emailPlaceholder')}
                data-testid="email-input"
              />
            </Form.Item>
            <Form.Item<EmailForm>
              name="isSubAlarm"
              label={t('account.subAlarm')}
              validateTrigger="onChange"
              rules={[{ required: true, message: validationText('subAlarmRequired') }]}
            >
              <Radio.Group
                options={[
                  { value: 'Y', label: <span data-testid="email-sub-Y">{t('account.subYes')}</span> },
                  { value: 'N', label: <span data-testid="email-sub-N">{t('account.subNo')}</span> },
                ]}
              />
            </Form.Item>
            <button type="submit" hidden aria-hidden="true" tabIndex={-1} />
          </Form>
        )}
      </div>
    </Modal>
  );
}
