/**
 * Dialogs of the scheme bar: a new empty scheme (name), a scheme from a tariff template
 * (template, name, year, power kW, SOC window %; shows the template's region, customer class,
 * price snapshot month, prices, seasons and sources), and renaming a scheme.
 * Test hooks: `scheme-create-dialog`, `scheme-name`, `scheme-create-submit`,
 * `template-dialog`, `template-select`, `template-name`, `template-year`, `template-power`,
 * `template-soc-min`, `template-soc-max`, `template-facts`, `template-submit`,
 * `rename-dialog`, `rename-name`, `rename-submit`.
 */
import {
  schemeFromTemplate,
  TEXT_LIMITS,
  TOU_TEMPLATES,
  TOU_TIERS,
  type TouSchemeDocument,
  type TouTemplate,
} from '@ess/contract';
import { Form, Input, InputNumber, Select, Tag } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { currentLang } from '@/shared/i18n';
import { FormDialog } from '@/shared/ui/FormDialog';
import { DEFAULT_STRATEGY, newSchemeDocument, TIER_COLORS } from '../model';

/** Longest scheme name the server takes (contract `TEXT_LIMITS.touSchemeName`). */
const NAME_MAX = TEXT_LIMITS.touSchemeName;

/** A new empty scheme: asks for its name. */
export function CreateSchemeDialog({
  open,
  defaultName,
  onClose,
  onCreate,
}: {
  open: boolean;
  defaultName: string;
  onClose: () => void;
  onCreate: (name: string, document: TouSchemeDocument) => Promise<boolean>;
}) {
  const { t } = useTranslation();
  const [form] = Form.useForm<{ name: string }>();
  const submit = async () => {
    const { name } = await form.validateFields();
    if (await onCreate(name.trim(), newSchemeDocument(t('tou.daily.defaultName', { n: 1 })))) onClose();
  };
  return (
    <FormDialog
      open={open}
      title={t('tou.scheme.createTitle')}
      form={form}
      saving={false}
      onOk={() => submit().catch(() => undefined)}
      onCancel={onClose}
      testId="scheme-create-dialog"
      submitTestId="scheme-create-submit"
      okText={t('tou.scheme.create')}
    >
      <Form form={form} layout="vertical" initialValues={{ name: defaultName }} preserve={false}>
        <Form.Item
          name="name"
          label={t('tou.scheme.name')}
          rules={[{ required: true, whitespace: true, message: t('tou.scheme.nameRequired') }]}
        >
          <Input
            maxLength={NAME_MAX}
            placeholder={t('tou.scheme.namePlaceholder')}
            data-testid="scheme-name"
          />
        </Form.Item>
      </Form>
    </FormDialog>
  );
}

interface TemplateForm {
  templateId: string;
  name: string;
  year: number;
  powerKw: number;
  socMinPct: number;
  socMaxPct: number;
}

function templateName(template: TouTemplate): string {
  const lang = currentLang();
  return `${template.region[lang]} ${template.month} ${template.customerClass[lang]}`.slice(0, NAME_MAX);
}

/** What a template says: region, class, snapshot month, prices, seasons, sources, note. */
function TemplateFacts({ template }: { template: TouTemplate }) {
  const { t } = useTranslation();
  const lang = currentLang();
  return (
    <dl className="tou-template-facts" data-testid="template-facts">
      <dt>{t('tou.template.region')}</dt>
      <dd>{template.region[lang]}</dd>
      <dt>{t('tou.template.customerClass')}</dt>
      <dd>{template.customerClass[lang]}</dd>
      <dt>{t('tou.template.month')}</dt>
      <dd>{template.month}</dd>
      <dt>{t('tou.template.prices')}</dt>
      <dd className="tou-template-facts__prices">
        {TOU_TIERS.filter((tier) => template.prices[tier] !== undefined).map((tier) => (
          <Tag key={tier} color={TIER_COLORS[tier]}>
            {t(`tou.tiers.${tier}`)} {template.prices[tier]}
          </Tag>
        ))}
      </dd>
      <dt>{t('tou.template.seasons')}</dt>
      <dd>
        <ul>
          {template.seasons.map((s) => (
            <li key={s.name.en}>{s.name[lang]}</li>
          ))}
        </ul>
      </dd>
      <dt>{t('tou.template.sources')}</dt>
      <dd>
        <ul className="tou-template-facts__sources">
          {template.sources.map((source) => (
            <li key={source}>{source}</li>
          ))}
        </ul>
      </dd>
      {template.note && (
        <>
          <dt>{t('tou.template.note')}</dt>
          <dd>{template.note[lang]}</dd>
        </>
      )}
    </dl>
  );
}

/** A new scheme from a real tariff: the template's plans with the standard strategy. */
export function TemplateDialog({
  open,
  onClose,
  onCreate,
}: {
  open: boolean;
  onClose: () => void;
  onCreate: (name: string, document: TouSchemeDocument) => Promise<boolean>;
}) {
  const { t } = useTranslation();
  const [form] = Form.useForm<TemplateForm>();
  const [chosen, setChosen] = useState<TouTemplate | null>(null);
  const required = { required: true, message: t('tou.template.required') };

  const submit = async () => {
    const v = await form.validateFields();
    const template = TOU_TEMPLATES.find((x) => x.id === v.templateId);
    if (!template) return;
    const document = schemeFromTemplate(template, {
      year: v.year,
      powerKw: v.powerKw,
      socMinPct: v.socMinPct,
      socMaxPct: v.socMaxPct,
      lang: currentLang(),
    });
    if (await onCreate(v.name.trim(), document)) onClose();
  };

  return (
    <FormDialog
      open={open}
      title={t('tou.template.title')}
      form={form}
      saving={false}
      onOk={() => submit().catch(() => undefined)}
      onCancel={() => {
        setChosen(null);
        onClose();
      }}
      testId="template-dialog"
      submitTestId="template-submit"
      okText={t('tou.template.create')}
    >
      <Form
        form={form}
        layout="vertical"
        preserve={false}
        initialValues={{ year: new Date().getFullYear(), ...DEFAULT_STRATEGY }}
        onValuesChange={(changed: Partial<TemplateForm>) => {
          if (changed.templateId === undefined) return;
          const template = TOU_TEMPLATES.find((x) => x.id === changed.templateId) ?? null;
          setChosen(template);
          if (template) form.setFieldValue('name', templateName(template));
        }}
      >
        <Form.Item name="templateId" label={t('tou.template.template')} rules={[required]}>
          <Select
            showSearch={{ optionFilterProp: 'label' }}
            placeholder={t('tou.template.templatePlaceholder')}
            options={TOU_TEMPLATES.map((x) => ({ value: x.id, label: templateName(x) }))}
            data-testid="template-select"
          />
        </Form.Item>
        {chosen && <TemplateFacts template={chosen} />}
        <Form.Item
          name="name"
          label={t('tou.scheme.name')}
          rules={[{ required: true, whitespace: true, message: t('tou.scheme.nameRequired') }]}
        >
          <Input maxLength={NAME_MAX} data-testid="template-name" />
        </Form.Item>
        <div className="tou-form-row">
          <Form.Item name="year" label={t('tou.template.year')} rules={[required]}>
            <InputNumber min={2000} max={2100} precision={0} data-testid="template-year" />
          </Form.Item>
          <Form.Item name="powerKw" label={t('tou.template.power')} rules={[required]}>
            <InputNumber min={0.1} max={100_000} data-testid="template-power" />
          </Form.Item>
          <Form.Item name="socMinPct" label={t('tou.template.socMin')} rules={[required]}>
            <InputNumber min={0} max={100} data-testid="template-soc-min" />
          </Form.Item>
          <Form.Item name="socMaxPct" label={t('tou.template.socMax')} rules={[required]}>
            <InputNumber min={0} max={100} data-testid="template-soc-max" />
          </Form.Item>
        </div>
        <p className="tou-muted">{t('tou.template.strategyHint')}</p>
      </Form>
    </FormDialog>
  );
}

/** Rename: resolves after `onRename` stored the name. */
export function RenameDialog({
  open,
  name,
  onClose,
  onRename,
}: {
  open: boolean;
  name: string;
  onClose: () => void;
  onRename: (name: string) => Promise<void>;
}) {
  const { t } = useTranslation();
  const [form] = Form.useForm<{ name: string }>();
  const [saving, setSaving] = useState(false);
  const submit = async () => {
    const v = await form.validateFields();
    setSaving(true);
    try {
      await onRename(v.name.trim());
      onClose();
    } finally {
      setSaving(false);
    }
  };
  return (
    <FormDialog
      open={open}
      title={t('tou.scheme.renameTitle')}
      form={form}
      saving={saving}
      onOk={() => submit().catch(() => undefined)}
      onCancel={onClose}
      testId="rename-dialog"
      submitTestId="rename-submit"
    >
      <Form form={form} layout="vertical" initialValues={{ name }} preserve={false}>
        <Form.Item
          name="name"
          label={t('tou.scheme.name')}
          rules={[{ required: true, whitespace: true, message: t('tou.scheme.nameRequired') }]}
        >
          <Input maxLength={NAME_MAX} data-testid="rename-name" />
        </Form.Item>
      </Form>
    </FormDialog>
  );
}
