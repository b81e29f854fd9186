/**
 * Add / edit a role (700 px, spec §9): name (1–32), code (contract `ROLE_CODE_PATTERN`), remark
 * (≤ 200), status, data scope, and the role authority tree. Editing reads the role's detail
 * first and sends its `version` back; when someone else changed the role meanwhile (5035) the
 * client shows the catalogue message and the dialog reloads the role, saying so. A taken name or
 * code (5036) marks both fields; a role gone meanwhile (5031) closes the dialog. An
 * administrator role holds every menu: its tree is shown fully checked and, like its status and
 * data scope, cannot be changed (the server refuses those with 5033). The tree lists what a role
 * of the role's company (a new role: the company chosen on the page) may be given.
 * Test hooks: `role-dialog`, `role-name`, `role-code`, `role-remark`, `role-status`,
 * `role-scope`, `role-admin-note`, `role-reloaded`, `role-submit` (and those of AuthorityTree).
 */
import {
  DATA_SCOPES,
  type DataScopeKind,
  type EnabledStatus,
  ErrorCode,
  ROLE_CODE_PATTERN,
  type RoleRow,
  TEXT_LIMITS,
} from '@ess/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Form, Input, Radio, Select, Spin } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { isApiError } from '@/shared/api/errors';
import { showSuccess } from '@/shared/feedback';
import { catalogueText } from '@/shared/i18n';
import { FormDialog } from '@/shared/ui/FormDialog';
import { AuthorityTree } from './AuthorityTree';
import { fetchRole, type RoleForm, roleKeys, saveRole } from './api';
import { useGrantableMenus } from './grantable';

interface Values {
  name: string;
  code: string;
  remark?: string;
  status: EnabledStatus;
  dataScope: DataScopeKind;
  menuIds: number[];
}

interface Props {
  open: boolean;
  /** The role to edit; none to add one. */
  role: RoleRow | null;
  /** The company a new role is added to (the caller's when undefined). */
  companyId: number | undefined;
  onClose: () => void;
}

/** The role dialog; see the module comment. */
export function RoleDialog({ open, role, companyId, onClose }: Props) {
  const { t } = useTranslation();
  const [form] = Form.useForm<Values>();
  const queryClient = useQueryClient();
  const [reloaded, setReloaded] = useState(false);
  const grantable = useGrantableMenus(open, role?.companyId ?? companyId);

  const detail = useQuery({
    queryKey: roleKeys.detail(role?.id ?? 0),
    queryFn: () => fetchRole(role?.id ?? 0),
    enabled: open && role !== null,
    // Always the latest version: a stale one would be refused (5035).
    staleTime: 0,
    gcTime: 0,
  });
  const current = detail.data;

  useEffect(() => {
    if (!open) return;
    if (!role) {
      form.setFieldsValue({ status: 'enabled', dataScope: 'company', menuIds: [] });
      return;
    }
    if (!current) return;
    form.setFieldsValue({
      name: current.name,
      code: current.code,
      remark: current.remark ?? undefined,
      status: current.status,
      dataScope: current.dataScope,
      menuIds: current.menuIds,
    });
  }, [open, role, current, form]);

  const close = () => {
    setReloaded(false);
    onClose();
  };

  const mutation = useMutation({
    mutationFn: (values: RoleForm) =>
      saveRole(values, current ? { id: current.id, version: current.version } : { companyId }),
    onSuccess: () => {
      showSuccess(t('roles.saved'));
      void queryClient.invalidateQueries({ queryKey: roleKeys.all });
      close();
    },
    onError: (err) => {
      if (!isApiError(err)) return;
      if (err.code === ErrorCode.ROLE_NAME_OR_CODE_EXISTS) {
        const text = catalogueText(err.code);
        form.setFields([
          { name: 'name', errors: [text] },
          { name: 'code', errors: [text] },
        ]);
      } else if (err.code === ErrorCode.ROLE_VERSION_CONFLICT) {
        setReloaded(true);
        void detail.refetch();
        void queryClient.invalidateQueries({ queryKey: roleKeys.all });
      } else if (err.code === ErrorCode.ROLE_NOT_FOUND) {
        void queryClient.invalidateQueries({ queryKey: roleKeys.all });
        close();
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
    mutation.mutate({
      name: values.name.trim(),
      code: values.code.trim(),
      remark: values.remark?.trim() || null,
      status: values.status,
      dataScope: values.dataScope,
      menuIds: current?.isAdmin ? current.menuIds : values.menuIds,
    });
  };

  const loading = role !== null && !current;
  const authorityHint = grantable.menus.some((m) => m.locked) ? t('roles.lockedHint') : undefined;
  const scopeOptions = DATA_SCOPES.map((s) => ({ value: s, label: t(`roles.scope.${s}`) }));

  return (
    <FormDialog
      open={open}
      title={role ? t('roles.edit') : t('roles.add')}
      form={form}
      saving={mutation.isPending}
      onOk={submit}
      onCancel={close}
      testId="role-dialog"
      submitTestId="role-submit"
      okDisabled={loading}
    >
      <Spin spinning={loading}>
        {reloaded && (
          <Alert
            type="warning"
            showIcon
            className="role-form__alert"
            title={t('roles.reloaded')}
            data-testid="role-reloaded"
          />
        )}
        <Form<Values> form={form} layout="vertical" onFinish={() => void submit()}>
          <div className="role-form__row">
            <Form.Item<Values>
              name="name"
              label={t('roles.field.name')}
              rules={[{ required: true, whitespace: true, message: t('roles.rule.nameRequired') }]}
            >
              <Input maxLength={TEXT_LIMITS.roleName} autoComplete="off" data-testid="role-name" />
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
                data-testid="role-code"
              />
            </Form.Item>
          </div>
          <div className="role-form__row">
            <Form.Item<Values> name="status" label={t('roles.field.status')}>
              <Radio.Group disabled={current?.isAdmin} data-testid="role-status">
                <Radio value="enabled">{t('roles.status.enabled')}</Radio>
                <Radio value="disabled">{t('roles.status.disabled')}</Radio>
              </Radio.Group>
            </Form.Item>
            <Form.Item<Values>
              name="dataScope"
              label={t('roles.field.dataScope')}
              tooltip={t('roles.scopeHint')}
            >
              <Select options={scopeOptions} disabled={current?.isAdmin} data-testid="role-scope" />
            </Form.Item>
          </div>
          <Form.Item<Values> name="remark" label={t('roles.field.remark')}>
            <Input.TextArea
              maxLength={TEXT_LIMITS.roleRemark}
              autoSize={{ minRows: 2, maxRows: 4 }}
              data-testid="role-remark"
            />
          </Form.Item>
          {current?.isAdmin ? (
            <Form.Item label={t('roles.field.authority')}>
              <Alert
                type="info"
                showIcon
                title={t('roles.adminHoldsAll')}
                className="role-form__alert"
                data-testid="role-admin-note"
              />
              <AuthorityTree menus={grantable.menus} loading={grantable.loading} readOnly />
            </Form.Item>
          ) : (
            <Form.Item<Values> name="menuIds" label={t('roles.field.authority')} extra={authorityHint}>
              <AuthorityTree menus={grantable.menus} loading={grantable.loading} />
            </Form.Item>
          )}
          <button type="submit" hidden aria-hidden="true" tabIndex={-1} />
        </Form>
      </Spin>
    </FormDialog>
  );
}
