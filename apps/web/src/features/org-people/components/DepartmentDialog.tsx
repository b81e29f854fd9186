/**
 * Add / edit a department (700 px, spec §9; full width on phones). Fields mirror the server's
 * `departmentInput`: parent (TreeSelect of the company's departments; on edit the department
 * itself and those below it are disabled), name 1–64, sort 0–9999, leader ≤ 32, phone (spec §5
 * "please enter the correct phone number"), status. A name taken at the same level (5004) marks
 * the name field as well as showing the message.
 * Test hooks: `dept-dialog`, `dept-parent`, `dept-name`, `dept-sort`, `dept-leader`,
 * `dept-phone`, `dept-status`, `dept-submit`.
 */
import { type DepartmentRow, type EnabledStatus, ErrorCode, PHONE_PATTERN, TEXT_LIMITS } from '@ess/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Form, Input, InputNumber, Radio, TreeSelect } from 'antd';
import { useEffect, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { isApiError } from '@/shared/api/errors';
import { showSuccess } from '@/shared/feedback';
import { catalogueText, validationText } from '@/shared/i18n';
import { FormDialog } from '@/shared/ui/FormDialog';
import { type DepartmentForm, orgPeopleKeys, saveDepartment } from '../api';
import { departmentOptions } from '../departmentTree';

interface Values {
  parentId?: number | null;
  name: string;
  sort: number;
  leader?: string;
  phone?: string;
  status: EnabledStatus;
}

/** What the dialog is open for: a new department (optionally under `parentId`) or an existing one. */
export type DepartmentDialogTarget =
  | { kind: 'add'; parentId: number | null }
  | { kind: 'edit'; department: DepartmentRow };

interface Props {
  /** Null: closed. */
  target: DepartmentDialogTarget | null;
  /** The company a new department is added to (the caller's when undefined). */
  companyId: number | undefined;
  /** Every department of the company (for the parent picker). */
  departments: readonly DepartmentRow[];
  onClose: () => void;
}

/** The department dialog; see the module comment. */
export function DepartmentDialog({ target, companyId, departments, onClose }: Props) {
  const { t } = useTranslation();
  const [form] = Form.useForm<Values>();
  const queryClient = useQueryClient();
  const editing = target?.kind === 'edit' ? target.department : null;
  const options = useMemo(() => departmentOptions(departments, editing?.id), [departments, editing]);

  useEffect(() => {
    if (!target) return;
    if (target.kind === 'edit') {
      const d = target.department;
      form.setFieldsValue({
        parentId: d.parentId,
        name: d.name,
        sort: d.sort,
        leader: d.leader ?? undefined,
        phone: d.phone ?? undefined,
        status: d.status,
      });
    } else {
      form.setFieldsValue({ parentId: target.parentId, sort: 0, status: 'enabled' });
    }
  }, [target, form]);

  const mutation = useMutation({
    mutationFn: (values: DepartmentForm) =>
      saveDepartment(values, editing ? { id: editing.id } : { companyId }),
    onSuccess: () => {
      showSuccess(t('departments.saved'));
      void queryClient.invalidateQueries({ queryKey: orgPeopleKeys.departments });
      void queryClient.invalidateQueries({ queryKey: orgPeopleKeys.employees });
      onClose();
    },
    onError: (err) => {
      if (isApiError(err) && err.code === ErrorCode.DEPARTMENT_NAME_EXISTS) {
        form.setFields([{ name: 'name', errors: [catalogueText(ErrorCode.DEPARTMENT_NAME_EXISTS)] }]);
      }
      if (isApiError(err) && err.code === ErrorCode.DEPARTMENT_PARENT_INVALID) {
        form.setFields([{ name: 'parentId', errors: [catalogueText(ErrorCode.DEPARTMENT_PARENT_INVALID)] }]);
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
      parentId: values.parentId ?? null,
      name: values.name.trim(),
      sort: values.sort ?? 0,
      leader: values.leader?.trim() || null,
      phone: values.phone?.trim() || null,
      status: values.status,
    });
  };

  return (
    <FormDialog
      open={target !== null}
      title={editing ? t('departments.edit') : t('departments.add')}
      form={form}
      saving={mutation.isPending}
      onOk={submit}
      onCancel={onClose}
      testId="dept-dialog"
      submitTestId="dept-submit"
    >
      <Form<Values> form={form} layout="vertical" onFinish={() => void submit()} className="org-form">
        <Form.Item<Values> name="parentId" label={t('departments.field.parent')}>
          <TreeSelect
            allowClear
            showSearch
            treeDefaultExpandAll
            treeData={options}
            treeNodeFilterProp="title"
            placeholder={t('departments.field.parentNone')}
            data-testid="dept-parent"
          />
        </Form.Item>
        <div className="org-form__row">
          <Form.Item<Values>
            name="name"
            label={t('departments.field.name')}
            rules={[{ required: true, whitespace: true, message: t('departments.rule.nameRequired') }]}
          >
            <Input maxLength={TEXT_LIMITS.departmentName} autoComplete="off" data-testid="dept-name" />
          </Form.Item>
          <Form.Item<Values>
            name="sort"
            label={t('departments.field.sort')}
            tooltip={t('departments.field.sortHint')}
          >
            <InputNumber
              min={0}
              max={9999}
              precision={0}
              className="org-form__number"
              data-testid="dept-sort"
            />
          </Form.Item>
        </div>
        <div className="org-form__row">
          <Form.Item<Values> name="leader" label={t('departments.field.leader')}>
            <Input maxLength={TEXT_LIMITS.departmentLeader} autoComplete="off" data-testid="dept-leader" />
          </Form.Item>
          <Form.Item<Values>
            name="phone"
            label={t('departments.field.phone')}
            rules={[{ pattern: PHONE_PATTERN, message: validationText('phoneInvalid') }]}
            validateTrigger="onBlur"
          >
            <Input
              maxLength={TEXT_LIMITS.phone}
              autoComplete="off"
              inputMode="tel"
              data-testid="dept-phone"
            />
          </Form.Item>
        </div>
        <Form.Item<Values> name="status" label={t('departments.field.status')}>
          <Radio.Group
            options={[
              { value: 'enabled', label: t('departments.status.enabled') },
              { value: 'disabled', label: t('departments.status.disabled') },
            ]}
            data-testid="dept-status"
          />
        </Form.Item>
        <button type="submit" hidden aria-hidden="true" tabIndex={-1} />
      </Form>
    </FormDialog>
  );
}
