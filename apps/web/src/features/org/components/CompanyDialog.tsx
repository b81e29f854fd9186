/**
 * Add / edit a partner company of one kind (700 px, spec §9; full width on phones). Rules mirror
 * the server's `companyInput`: name 1–64, contact ≤ 32, phone a mainland mobile number or
 * nothing. On add, the parent select offers the caller's own company (the default when left
 * empty) and the companies of every kind the caller may list (see {@link useParentOptions}), and
 * a hint says the server also creates the company's administrator role, to be given to an
 * employee in Employees. Companies are not moved: on edit the parent is shown read-only.
 * A taken name or phone (6002) marks both fields.
 * Test hooks: `company-dialog`, `company-name`, `company-contact`, `company-phone`,
 * `company-parent`, `company-submit`.
 */
import { type CompanyKind, type CompanyRow, ErrorCode, PHONE_PATTERN, TEXT_LIMITS } from '@ess/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Alert, Form, Input, Select } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useSession } from '@/features/auth';
import { isApiError } from '@/shared/api/errors';
import { showSuccess } from '@/shared/feedback';
import { NO_VALUE } from '@/shared/format';
import { catalogueText, validationText } from '@/shared/i18n';
import { FormDialog } from '@/shared/ui/FormDialog';
import { type CompanyForm, orgKeys, saveCompany } from '../api';
import { useParentOptions } from '../useParentOptions';

interface Values {
  name: string;
  contact?: string;
  phone?: string;
  parentId?: number | null;
}

interface Props {
  kind: CompanyKind;
  open: boolean;
  /** The company to edit; none to add one. */
  company: CompanyRow | null;
  onClose: () => void;
}

/** The company dialog; see the module comment. */
export function CompanyDialog({ kind, open, company, onClose }: Props) {
  const { t } = useTranslation();
  const [form] = Form.useForm<Values>();
  const queryClient = useQueryClient();
  const user = useSession((s) => s.user);
  const parents = useParentOptions(open && company === null);
  const one = t(`org.one.${kind}`);

  useEffect(() => {
    if (!open) return;
    form.setFieldsValue(
      company
        ? {
            name: company.name,
            contact: company.contact ?? undefined,
            phone: company.phone ?? undefined,
          }
        : {},
    );
  }, [open, company, form]);

  const mutation = useMutation({
    mutationFn: (values: CompanyForm) => saveCompany(kind, values, company?.id),
    onSuccess: () => {
      showSuccess(t('org.saved'));
      void queryClient.invalidateQueries({ queryKey: orgKeys.all });
      onClose();
    },
    onError: (err) => {
      if (isApiError(err) && err.code === ErrorCode.COMPANY_NAME_OR_PHONE_EXISTS) {
        const text = catalogueText(ErrorCode.COMPANY_NAME_OR_PHONE_EXISTS);
        const phone = form.getFieldValue('phone') as string | undefined;
        form.setFields([
          { name: 'name', errors: [text] },
          ...(phone?.trim() ? [{ name: 'phone' as const, errors: [text] }] : []),
        ]);
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
      contact: values.contact?.trim() || null,
      phone: values.phone?.trim() || null,
      parentId: values.parentId ?? null,
    });
  };

  return (
    <FormDialog
      open={open}
      title={company ? t('org.edit', { one }) : t('org.add', { one })}
      form={form}
      saving={mutation.isPending}
      onOk={submit}
      onCancel={onClose}
      testId="company-dialog"
      submitTestId="company-submit"
    >
      {!company && <Alert type="info" showIcon className="company-form__hint" title={t('org.adminHint')} />}
      <Form<Values> form={form} layout="vertical" onFinish={() => void submit()}>
        <Form.Item<Values>
          name="name"
          label={t('org.field.name')}
          rules={[{ required: true, whitespace: true, message: t('org.rule.nameRequired') }]}
        >
          <Input maxLength={TEXT_LIMITS.companyName} autoComplete="off" data-testid="company-name" />
        </Form.Item>
        <div className="company-form__row">
          <Form.Item<Values> name="contact" label={t('org.field.contact')}>
            <Input maxLength={TEXT_LIMITS.companyContact} autoComplete="off" data-testid="company-contact" />
          </Form.Item>
          <Form.Item<Values>
            name="phone"
            label={t('org.field.phone')}
            rules={[{ pattern: PHONE_PATTERN, message: validationText('phoneInvalid') }]}
          >
            <Input
              maxLength={TEXT_LIMITS.phone}
              inputMode="tel"
              autoComplete="off"
              data-testid="company-phone"
            />
          </Form.Item>
        </div>
        {company ? (
          <Form.Item label={t('org.field.parent')}>
            <Input value={company.parentName ?? NO_VALUE} disabled data-testid="company-parent" />
          </Form.Item>
        ) : (
          <Form.Item<Values> name="parentId" label={t('org.field.parent')} extra={t('org.parentHint')}>
            <Select
              allowClear
              showSearch={{ optionFilterProp: 'label' }}
              loading={parents.loading}
              options={parents.options}
              placeholder={t('org.parentDefault', { company: user?.companyName ?? '' })}
              data-testid="company-parent"
            />
          </Form.Item>
        )}
        <button type="submit" hidden aria-hidden="true" tabIndex={-1} />
      </Form>
    </FormDialog>
  );
}
