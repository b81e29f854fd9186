/**
 * Copy a role: asks the new role's name (prefilled "<name> copy") and code, then `role/copy`
 * creates it with the same rights and data scope. A taken name or code (5036) marks both
 * fields; a role gone meanwhile (5031) closes the dialog.
 * Test hooks: `role-copy-dialog`, `role-copy-name`, `role-copy-code`, `role-copy-submit`.
 */
import { ErrorCode, ROLE_CODE_PATTERN, type RoleRow, TEXT_LIMITS } from '@ess/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Form, Input } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { isApiError } from '@/shared/api/errors';
import { showSuccess } from '@/shared/feedback';
import { catalogueText } from '@/shared/i18n';
import { FormDialog } from '@/shared/ui/FormDialog';
import { copyRole, roleKeys } from './api';

/** Longest role name the server takes (contract `TEXT_LIMITS.roleName`). */
const NAME_MAX = TEXT_LIMITS.roleName;

interface Values {
  name: string;
  code: string;
}

interface Props {
  open: boolean;
  /** The role to copy. */
  role: RoleRow | null;
  onClose: () => void;
}

/** The copy dialog; see the module comment. */
export function RoleCopyDialog({ open, role, onClose }: Props) {
  const { t } = useTranslation();
  const [form] = Form.useForm<Values>();
  const queryClient = useQueryClient();

  useEffect(() => {
    if (open && role) {
      form.setFieldsValue({ name: t('roles.copyName', { name: role.name }).slice(0, NAME_MAX) });
    }
  }, [open, role, form, t]);

  const mutation = useMutation({
    mutationFn: (values: Values) => copyRole(role?.id ?? 0, values.name, values.code),
    onSuccess: () => {
      showSuccess(t('roles.copied'));
      void queryClient.invalidateQueries({ queryKey: roleKeys.all });
      onClose();
    },
    onError: (err) => {
      if (!isApiError(err)) return;
      if (err.code === ErrorCode.ROLE_NAME_OR_CODE_EXISTS) {
        const text = catalogueText(err.code);
        form.setFields([
          { name: 'name', errors: [text] },
          { name: 'code', errors: [text] },
        ]);
      } else if (err.code === ErrorCode.ROLE_NOT_FOUND) {
        void queryClient.invalidateQueries({ queryKey: roleKeys.all });
        onClose();
      }
    },
  });

  const submit = async () => {
    let values: Values;
    try {
      values = await form.validateFields();
    } catch {
      return;
    }
    mutation.mutate({ name: values.name.trim(), code: values.code.trim() });
  };

  return (
    <FormDialog
      open={open}
      title={t('roles.copyTitle', { name: role?.name ?? '' })}
      form={form}
      saving={mutation.isPending}
      onOk={submit}
      onCancel={onClose}
      testId="role-copy-dialog"
      submitTestId="role-copy-submit"
      okText={t('roles.copy')}
    >
      <p className="role-form__hint">{t('roles.copyHint')}</p>
      <Form<Values> form={form} layout="vertical" onFinish={() => void submit()}>
        <div className="role-form__row">
          <Form.Item<Values>
            name="name"
            label={t('roles.field.name')}
            rules={[{ required: true, whitespace: true, message: t('roles.rule.nameRequired') }]}
          >
            <Input maxLength={NAME_MAX} autoComplete="off" data-testid="role-copy-name" />
          </Form.Item>
          <Form.Item<Values>
            name="code"
            label={t('roles.field.code')}
            rules={[
              { required: true, whitespace: true, message: t('roles.rule.codeRequired') },
              { pattern: ROLE_CODE_PATTERN, message: t('roles.rule.codeFormat') },
            ]}
          >
            <Input
              maxLength={TEXT_LIMITS.roleCode}
              autoComplete="off"
              placeholder={t('roles.rule.codeFormat')}
              data-testid="role-copy-code"
            />
          </Form.Item>
        </div>
        <button type="submit" hidden aria-hidden="true" tabIndex={-1} />
      </Form>
    </FormDialog>
  );
}
