/**
 * Add / edit an employee (700 px, spec §9; full width on phones). On create: sign-in account
 * and initial password with confirmation (≥ 6 characters, sent as SHA-256 digest; the employee
 * must change it at first sign-in). Then name, phone (spec §5), e-mail, department
 * (TreeSelect of the chosen company's departments), roles (that company's enabled roles, one
 * page of 500) and the administrator flag. A new employee joins the chosen company. Editing
 * loads `employee/detail` and fills the form from it (from the list row until it arrives).
 * An account that already exists is added as is (invited, when it belongs to a company the
 * caller does not see): the answer is the same as for a new account, so the dialog says the
 * same "saved" either way, and the password hint explains both cases. 5050 (account already an
 * employee here) also marks the account field.
 * Test hooks: `employee-dialog`, `employee-account`, `employee-password`,
 * `employee-password-confirm`, `employee-name`, `employee-phone`, `employee-email`,
 * `employee-department`, `employee-roles`, `employee-admin`, `employee-submit`.
 */
import {
  type DepartmentRow,
  EMAIL_PATTERN,
  type EmployeeRow,
  ErrorCode,
  Perm,
  PHONE_PATTERN,
  TEXT_LIMITS,
} from '@ess/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Form, Input, Select, Switch, TreeSelect } from 'antd';
import { useEffect, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { usePermission } from '@/features/auth';
import { isApiError } from '@/shared/api/errors';
import { showSuccess } from '@/shared/feedback';
import { confirmRules, passwordRules } from '@/shared/forms/passwordRules';
import { catalogueText, validationText } from '@/shared/i18n';
import { FormDialog } from '@/shared/ui/FormDialog';
import {
  createEmployee,
  type EmployeeForm,
  fetchEmployee,
  fetchEnabledRoles,
  orgPeopleKeys,
  updateEmployee,
} from '../api';
import { departmentOptions } from '../departmentTree';

interface Values {
  account: string;
  password: string;
  confirmPassword: string;
  name: string;
  phone?: string;
  email?: string;
  departmentId?: number | null;
  roleIds: number[];
  isAdmin: boolean;
}

/** What the dialog is open for: a new employee (in `departmentId`, if chosen) or an existing one. */
export type EmployeeDialogTarget =
  | { kind: 'add'; departmentId: number | null }
  | { kind: 'edit'; employee: EmployeeRow };

interface Props {
  /** Null: closed. */
  target: EmployeeDialogTarget | null;
  /** The company whose employee this is (the caller's when undefined). */
  companyId: number | undefined;
  /** The company's departments; null when the user may not list them (system:dept:list). */
  departments: readonly DepartmentRow[] | null;
  onClose: () => void;
}

function valuesOf(e: EmployeeRow): Partial<Values> {
  return {
    name: e.name,
    phone: e.phone ?? undefined,
    email: e.email ?? undefined,
    departmentId: e.departmentId,
    roleIds: e.roles.map((r) => r.id),
    isAdmin: e.isAdmin,
  };
}

/** The employee dialog; see the module comment. */
export function EmployeeDialog({ target, companyId, departments, onClose }: Props) {
  const { t } = useTranslation();
  const [form] = Form.useForm<Values>();
  const queryClient = useQueryClient();
  const open = target !== null;
  const editing = target?.kind === 'edit' ? target.employee : null;

  // Choosing needs the lists: without system:role:list / system:dept:list the fields show the
  // employee's current roles and department, read-only.
  const canListRoles = usePermission(Perm.roleList);
  const roles = useQuery({
    queryKey: orgPeopleKeys.rolesOf(companyId),
    queryFn: () => fetchEnabledRoles(companyId),
    enabled: open && canListRoles,
  });
  const detail = useQuery({
    queryKey: orgPeopleKeys.employee(editing?.id ?? 0),
    queryFn: () => fetchEmployee(editing!.id),
    enabled: editing !== null,
  });

  const departmentTree = useMemo(() => {
    if (departments) return departmentOptions(departments);
    const current = detail.data ?? editing;
    return current?.departmentId && current.departmentName
      ? [{ value: current.departmentId, title: current.departmentName, disabled: false, children: [] }]
      : [];
  }, [departments, detail.data, editing]);
  const roleOptions = useMemo(() => {
    const options = (roles.data ?? []).map((r) => ({ value: r.id, label: r.name }));
    // Roles the employee holds but that are not offered (disabled since) still show by name.
    const held = detail.data?.roles ?? editing?.roles ?? [];
    for (const r of held)
      if (!options.some((o) => o.value === r.id)) options.push({ value: r.id, label: r.name });
    return options;
  }, [roles.data, detail.data, editing]);

  useEffect(() => {
    if (!target) return;
    if (target.kind === 'edit') form.setFieldsValue(valuesOf(target.employee));
    else form.setFieldsValue({ departmentId: target.departmentId, roleIds: [], isAdmin: false });
  }, [target, form]);

  // The detail replaces the list row's values unless the user has started typing.
  useEffect(() => {
    if (editing && detail.data?.id === editing.id && !form.isFieldsTouched()) {
      form.setFieldsValue(valuesOf(detail.data));
    }
  }, [editing, detail.data, form]);

  const mutation = useMutation({
    mutationFn: async (values: Values) => {
      const fields: EmployeeForm = {
        name: values.name.trim(),
        phone: values.phone?.trim() || null,
        email: values.email?.trim() || null,
        departmentId: values.departmentId ?? null,
        roleIds: values.roleIds ?? [],
        isAdmin: values.isAdmin ?? false,
      };
      if (editing) {
        await updateEmployee(editing.id, fields);
        return;
      }
      const account = values.account.trim();
      await createEmployee({ ...fields, account, password: values.password, companyId });
    },
    onSuccess: () => {
      showSuccess(t('employees.saved'));
      void queryClient.invalidateQueries({ queryKey: orgPeopleKeys.employees });
      void queryClient.invalidateQueries({ queryKey: orgPeopleKeys.departments });
      onClose();
    },
    onError: (err) => {
      if (isApiError(err) && err.code === ErrorCode.ACCOUNT_HAS_EMPLOYEE) {
        form.setFields([{ name: 'account', errors: [catalogueText(ErrorCode.ACCOUNT_HAS_EMPLOYEE)] }]);
      }
    },
  });

  const submit = async () => {
    try {
      mutation.mutate(await form.validateFields());
    } catch {
      // the form shows what is wrong
    }
  };

  return (
    <FormDialog
      open={open}
      title={editing ? t('employees.edit') : t('employees.add')}
      form={form}
      saving={mutation.isPending}
      onOk={submit}
      onCancel={onClose}
      testId="employee-dialog"
      submitTestId="employee-submit"
    >
      <Form<Values> form={form} layout="vertical" onFinish={() => void submit()} className="org-form">
        {!editing && (
          <>
            <Form.Item<Values>
              name="account"
              label={t('employees.field.account')}
              extra={t('employees.hint.account')}
              rules={[{ required: true, whitespace: true, message: t('employees.rule.accountRequired') }]}
            >
              <Input maxLength={TEXT_LIMITS.account} autoComplete="off" data-testid="employee-account" />
            </Form.Item>
            <div className="org-form__row">
              <Form.Item<Values>
                name="password"
                label={t('employees.field.password')}
                rules={passwordRules()}
                validateTrigger="onBlur"
              >
                <Input.Password autoComplete="new-password" data-testid="employee-password" />
              </Form.Item>
              <Form.Item<Values>
                name="confirmPassword"
                label={t('employees.field.confirmPassword')}
                dependencies={['password']}
                rules={confirmRules('password')}
                validateTrigger="onBlur"
              >
                <Input.Password autoComplete="new-password" data-testid="employee-password-confirm" />
              </Form.Item>
            </div>
            <p className="org-form__hint">{t('employees.hint.password')}</p>
          </>
        )}
        <div className="org-form__row">
          <Form.Item<Values>
            name="name"
            label={t('employees.field.name')}
            rules={[{ required: true, whitespace: true, message: t('employees.rule.nameRequired') }]}
          >
            <Input maxLength={TEXT_LIMITS.employeeName} autoComplete="off" data-testid="employee-name" />
          </Form.Item>
          <Form.Item<Values>
            name="phone"
            label={t('employees.field.phone')}
            rules={[{ pattern: PHONE_PATTERN, message: validationText('phoneInvalid') }]}
            validateTrigger="onBlur"
          >
            <Input
              maxLength={TEXT_LIMITS.phone}
              autoComplete="off"
              inputMode="tel"
              data-testid="employee-phone"
            />
          </Form.Item>
        </div>
        <div className="org-form__row">
          <Form.Item<Values>
            name="email"
            label={t('employees.field.email')}
            rules={[{ pattern: EMAIL_PATTERN, message: validationText('emailInvalid') }]}
            validateTrigger="onBlur"
          >
            <Input
              maxLength={TEXT_LIMITS.email}
              autoComplete="off"
              inputMode="email"
              data-testid="employee-email"
            />
          </Form.Item>
          <Form.Item<Values>
            name="departmentId"
            label={t('employees.field.department')}
            extra={departments ? undefined : t('employees.hint.departmentLocked')}
          >
            <TreeSelect
              disabled={!departments}
              allowClear
              showSearch
              treeDefaultExpandAll
              treeData={departmentTree}
              treeNodeFilterProp="title"
              placeholder={t('employees.field.departmentNone')}
              data-testid="employee-department"
            />
          </Form.Item>
        </div>
        <Form.Item<Values>
          name="roleIds"
          label={t('employees.field.roles')}
          extra={canListRoles ? undefined : t('employees.hint.rolesLocked')}
        >
          <Select
            disabled={!canListRoles}
            mode="multiple"
            allowClear
            options={roleOptions}
            loading={roles.isLoading}
            optionFilterProp="label"
            placeholder={t('employees.field.rolesPlaceholder')}
            data-testid="employee-roles"
          />
        </Form.Item>
        <Form.Item<Values>
          name="isAdmin"
          label={t('employees.field.admin')}
          extra={t('employees.hint.admin')}
          valuePropName="checked"
        >
          <Switch data-testid="employee-admin" />
        </Form.Item>
        <button type="submit" hidden aria-hidden="true" tabIndex={-1} />
      </Form>
    </FormDialog>
  );
}
