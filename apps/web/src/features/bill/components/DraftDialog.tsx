/**
 * "Draft now" (bill:bill:draft): a project and an ended month (site-local `YYYY-MM`; default the
 * last one), or the running month as a month-to-date preview (settled only once it has ended:
 * 7064 before) → `bill/draft`. A draft of the month is recomputed in place; a settled month answers
 * 7060 (its text shown by the client); a contract that cannot be split or a bound date without a
 * tariff answers -100 with the server's text naming the field, shown here under the form.
 * Test hooks: `bill-draft-dialog`, `bill-draft-project`, `bill-draft-month`, `bill-draft-submit`.
 */
import { Form, Select } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { showSuccess } from '@/shared/feedback';
import { FormDialog } from '@/shared/ui/FormDialog';
import { draftBill } from '../api';

interface Values {
  projectId: number;
  month: string;
}

export function DraftDialog({
  projects,
  months,
  runningMonth,
  initialProjectId,
  onClose,
  onDrafted,
}: {
  projects: readonly { id: number; name: string }[];
  months: readonly string[];
  /** The month holding today, offered first as "month to date". */
  runningMonth?: string | undefined;
  initialProjectId?: number | undefined;
  onClose: () => void;
  onDrafted: (id: number) => void;
}) {
  const { t } = useTranslation();
  const [form] = Form.useForm<Values>();
  const [saving, setSaving] = useState(false);
  const submit = async () => {
    const v = await form.validateFields().catch(() => null);
    if (!v) return;
    setSaving(true);
    try {
      const out = await draftBill(v.projectId, v.month);
      const name = projects.find((p) => p.id === v.projectId)?.name ?? '';
      showSuccess(t('bill.done.draft', { project: name, month: v.month, version: out.version }));
      onDrafted(out.id);
    } catch {
      // the client showed the refusal
    } finally {
      setSaving(false);
    }
  };
  return (
    <FormDialog
      open
      title={t('bill.draftTitle')}
      form={form}
      saving={saving}
      onOk={submit}
      onCancel={onClose}
      okText={t('bill.draftOk')}
      testId="bill-draft-dialog"
      submitTestId="bill-draft-submit"
    >
      <Form<Values>
        form={form}
        layout="vertical"
        initialValues={{ projectId: initialProjectId, month: months[0] }}
      >
        <Form.Item
          name="projectId"
          label={t('bill.field.project')}
          rules={[{ required: true, message: t('bill.projectRequired') }]}
        >
          <Select<number>
            showSearch
            optionFilterProp="label"
            options={projects.map((p) => ({ value: p.id, label: p.name }))}
            placeholder={t('bill.projectRequired')}
            data-testid="bill-draft-project"
          />
        </Form.Item>
        <Form.Item
          name="month"
          label={t('bill.field.month')}
          extra={t('bill.draftHint')}
          rules={[{ required: true, message: t('bill.monthRequired') }]}
        >
          <Select<string>
            options={[...(runningMonth ? [runningMonth] : []), ...months].map((m) => ({
              value: m,
              label: m === runningMonth ? t('bill.monthToDateOption', { month: m }) : m,
            }))}
            data-testid="bill-draft-month"
          />
        </Form.Item>
      </Form>
    </FormDialog>
  );
}
