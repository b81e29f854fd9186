/**
 * An administrator sets a new password for an employee (`employee/resetPassword`): new password
 * and confirmation (≥ 6 characters, equal), sent as SHA-256 digest; the employee must change it
 * at the next sign-in. 700 px (spec §9), full width on phones.
 * Test hooks: `reset-password-dialog`, `reset-password-new`, `reset-password-confirm`,
 * `reset-password-submit`.
 */
import type { EmployeeRow } from '@ess/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Form, Input } from 'antd';
import { useTranslation } from 'react-i18next';
import { showSuccess } from '@/shared/feedback';
import { confirmRules, passwordRules } from '@/shared/forms/passwordRules';
import { FormDialog } from '@/shared/ui/FormDialog';
import { orgPeopleKeys, resetEmployeePassword } from '../api';

interface Values {
  password: string;
  confirmPassword: string;
}

/** Open while `employee` is set. */
export function ResetPasswordDialog({
  employee,
  onClose,
}: {
  employee: EmployeeRow | null;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const [form] = Form.useForm<Values>();
  const queryClient = useQueryClient();

  const mutation = useMutation({
    mutationFn: ({ target, password }: { target: EmployeeRow; password: string }) =>
      resetEmployeePassword(target.id, password),
    onSuccess: (_, { target }) => {
      showSuccess(t('employees.passwordReset', { name: target.name }));
      void queryClient.invalidateQueries({ queryKey: orgPeopleKeys.employees });
      onClose();
    },
  });

  const submit = async () => {
    if (!employee) return;
    try {
      const values = await form.validateFields();
      mutation.mutate({ target: employee, password: values.password });
    } catch {
      // the form shows what is wrong
    }
  };

  return (
    <FormDialog
      open={employee !== null}
      title={t('employees.reset.title')}
      form={form}
      saving={mutation.isPending}
      onOk={submit}
      onCancel={onClose}
      testId="reset-password-dialog"
      submitTestId="reset-password-submit"
      okText={t('common.ok')}
    >
      {employee && (
        <p className="org-form__intro">
          {t('employees.reset.hint', { name: employee.name, account: employee.account })}
        </p>
      )}
      <Form<Values> form={form} layout="vertical" onFinish={() => void submit()} className="org-form">
        <Form.Item<Values>
          name="password"
          label={t('employees.reset.newPassword')}
          rules={passwordRules()}
          validateTrigger="onBlur"
        >
          <Input.Password autoComplete="new-password" data-testid="reset-password-new" />
        </Form.Item>
        <Form.Item<Values>
          name="confirmPassword"
          label={t('employees.reset.confirmPassword')}
          dependencies={['password']}
          rules={confirmRules('password')}
          validateTrigger="onBlur"
        >
          <Input.Password autoComplete="new-password" data-testid="reset-password-confirm" />
        </Form.Item>
        <button type="submit" hidden aria-hidden="true" tabIndex={-1} />
      </Form>
    </FormDialog>
  );
}
