/**
 * Correct a settled bill (bill:bill:correct): the reason (required, ≤ BILL_REASON_MAX characters)
 * → `bill/correct`, a new draft version recomputed from today's data; the settled version stays as
 * it was. Refusals (7063 not the latest settled version, 7062) are shown by the client.
 * Test hooks: `bill-correct-dialog`, `bill-correct-reason`, `bill-correct-submit`.
 */
import { BILL_REASON_MAX, type BillRow } from '@ess/contract';
import { Form, Input } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { showSuccess } from '@/shared/feedback';
import { FormDialog } from '@/shared/ui/FormDialog';
import { correctBill } from '../api';

export function CorrectDialog({
  bill,
  onClose,
  onCorrected,
}: {
  bill: BillRow;
  onClose: () => void;
  onCorrected: (id: number) => void;
}) {
  const { t } = useTranslation();
  const [form] = Form.useForm<{ reason: string }>();
  const [saving, setSaving] = useState(false);
  const submit = async () => {
    const v = await form.validateFields().catch(() => null);
    if (!v) return;
    setSaving(true);
    try {
      const out = await correctBill(bill.id, v.reason.trim());
      showSuccess(t('bill.done.correct', { version: out.version }));
      onCorrected(out.id);
    } catch {
      // the client showed the refusal
    } finally {
      setSaving(false);
    }
  };
  return (
    <FormDialog
      open
      title={t('bill.correctTitle', { project: bill.projectName, month: bill.month, version: bill.version })}
      form={form}
      saving={saving}
      onOk={submit}
      onCancel={onClose}
      okText={t('bill.correct')}
      testId="bill-correct-dialog"
      submitTestId="bill-correct-submit"
    >
      <p className="bill-muted">{t('bill.correctHint')}</p>
      <Form form={form} layout="vertical">
        <Form.Item
          name="reason"
          label={t('bill.field.reason')}
          rules={[{ required: true, whitespace: true, message: t('bill.reasonRequired') }]}
        >
          <Input.TextArea rows={3} maxLength={BILL_REASON_MAX} showCount data-testid="bill-correct-reason" />
        </Form.Item>
      </Form>
    </FormDialog>
  );
}
