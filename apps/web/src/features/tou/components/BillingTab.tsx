/**
 * The scheme editor's billing section (issue 17 item 2): the two-part (basic) charge kept with the
 * scheme — a demand charge in CNY/kW·month on the month's maximum demand or on the contracted
 * demand, and a capacity charge in CNY/kVA·month on the transformer — and the site-local date the
 * next save's prices (and the next site assignment) apply from (empty: each site's today). None of
 * it goes to the EMS (`set_tou_plan` keeps its shape). A charge lacking what it needs is marked
 * at the field (contract money/valuation.ts `twoPartTariffMissingField`, the server's -100 too).
 * Test hooks: `billing-demand-price`, `billing-demand-basis`, `billing-contracted-kw`,
 * `billing-capacity-price`, `billing-transformer-kva`, `billing-effective-from`.
 */
import {
  DEMAND_BASES,
  type DemandBasis,
  NO_TWO_PART,
  type TwoPartTariff,
  twoPartTariffMissingField,
} from '@ess/contract';
import { Alert, DatePicker, Form, InputNumber, Radio } from 'antd';
import dayjs from 'dayjs';
import { useTranslation } from 'react-i18next';
import type { SchemeEditor } from '../useSchemeEditor';

export function BillingTab({ editor, editable }: { editor: SchemeEditor; editable: boolean }) {
  const { t } = useTranslation();
  const twoPart = editor.draft?.twoPart ?? null;
  const value: TwoPartTariff = twoPart ?? NO_TWO_PART;
  const missing = twoPartTariffMissingField(value);
  const set = (change: Partial<TwoPartTariff>) => {
    const next = { ...value, ...change };
    const empty = Object.values(next).every((v) => v === null);
    editor.setTwoPart(empty ? null : next);
  };
  const status = (field: keyof TwoPartTariff) => (missing === field ? ('error' as const) : undefined);
  const help = (field: keyof TwoPartTariff) => (missing === field ? t('tou.billing.required') : undefined);
  const num = (v: number | string | null) => (v === null || v === '' ? null : Number(v));

  return (
    <div className="tou-billing" data-testid="tou-billing">
      <Alert type="info" showIcon message={t('tou.billing.hint')} className="tou-billing__hint" />
      <Form layout="vertical" disabled={!editable} className="tou-billing__form">
        <Form.Item label={t('tou.billing.demandPrice')}>
          <InputNumber
            data-testid="billing-demand-price"
            min={0}
            step={1}
            addonAfter={t('tou.billing.perKwMonth')}
            value={value.demandChargeCnyPerKwMonth}
            onChange={(v) => set({ demandChargeCnyPerKwMonth: num(v) })}
          />
        </Form.Item>
        <Form.Item
          label={t('tou.billing.demandBasis')}
          validateStatus={status('demandBasis')}
          help={help('demandBasis')}
        >
          <Radio.Group
            data-testid="billing-demand-basis"
            value={value.demandBasis}
            onChange={(e) => set({ demandBasis: e.target.value as DemandBasis })}
            options={DEMAND_BASES.map((b) => ({ value: b, label: t(`tou.billing.basis.${b}`) }))}
          />
        </Form.Item>
        <Form.Item
          label={t('tou.billing.contractedKw')}
          validateStatus={status('contractedDemandKw')}
          help={help('contractedDemandKw')}
        >
          <InputNumber
            data-testid="billing-contracted-kw"
            min={0}
            addonAfter="kW"
            value={value.contractedDemandKw}
            onChange={(v) => set({ contractedDemandKw: num(v) })}
          />
        </Form.Item>
        <Form.Item label={t('tou.billing.capacityPrice')}>
          <InputNumber
            data-testid="billing-capacity-price"
            min={0}
            addonAfter={t('tou.billing.perKvaMonth')}
            value={value.capacityChargeCnyPerKvaMonth}
            onChange={(v) => set({ capacityChargeCnyPerKvaMonth: num(v) })}
          />
        </Form.Item>
        <Form.Item
          label={t('tou.billing.transformerKva')}
          validateStatus={status('transformerKva')}
          help={help('transformerKva')}
        >
          <InputNumber
            data-testid="billing-transformer-kva"
            min={0}
            addonAfter="kVA"
            value={value.transformerKva}
            onChange={(v) => set({ transformerKva: num(v) })}
          />
        </Form.Item>
        <Form.Item label={t('tou.billing.effectiveFrom')} extra={t('tou.billing.effectiveFromHint')}>
          <DatePicker
            data-testid="billing-effective-from"
            value={editor.effectiveFrom ? dayjs(editor.effectiveFrom) : null}
            onChange={(d) => editor.setEffectiveFrom(d ? d.format('YYYY-MM-DD') : null)}
            placeholder={t('tou.billing.today')}
            format="YYYY-MM-DD"
            style={{ minWidth: 200 }}
          />
        </Form.Item>
      </Form>
    </div>
  );
}
