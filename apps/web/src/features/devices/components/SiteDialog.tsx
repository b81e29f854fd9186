/**
 * Add / edit a site (700 px, spec §9). Rules mirror the server's `siteInput`: code 2–32 letters,
 * digits, '_' or '-'; name 1–64; address ≤ 200; an IANA time zone (default Asia/Shanghai);
 * latitude −90…90 and longitude −180…180, both optional. A taken code (3039) marks the field.
 * The company the site belongs to: adding, any company the caller may see (`company/options`),
 * the signed-in company first; editing, shown only — a site changes company through "move to
 * company" (MoveSiteDialog). `onSaved` gets the saved site's id and code (the page selects a new
 * site).
 * Test hooks: `site-dialog`, `site-company`, `site-code`, `site-name`, `site-address`,
 * `site-timezone`, `site-latitude`, `site-longitude`, `site-submit`.
 */
import {
  DEFAULT_SITE_TIMEZONE,
  ErrorCode,
  SITE_CODE_PATTERN,
  type SiteRow,
  TEXT_LIMITS,
} from '@ess/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Form, Input, InputNumber, Select } from 'antd';
import { useEffect, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useSession } from '@/features/auth';
import { CompanyPicker } from '@/features/org-people';
import { isApiError } from '@/shared/api/errors';
import { showSuccess } from '@/shared/feedback';
import { catalogueText } from '@/shared/i18n';
import { FormDialog } from '@/shared/ui/FormDialog';
import { registryKeys, type SiteForm, saveSite } from '../api';

function timeZones(current: string | undefined): string[] {
  let zones: string[];
  try {
    zones = Intl.supportedValuesOf('timeZone');
  } catch {
    zones = [DEFAULT_SITE_TIMEZONE, 'UTC'];
  }
  const all = new Set([DEFAULT_SITE_TIMEZONE, 'UTC', ...zones]);
  if (current) all.add(current);
  return [...all].sort((a, b) => a.localeCompare(b));
}

interface Values {
  companyId?: number;
  code: string;
  name: string;
  address?: string;
  timezone: string;
  latitude?: number | null;
  longitude?: number | null;
}

interface Props {
  open: boolean;
  /** The site to edit; none to add one. */
  site: SiteRow | null;
  onClose: () => void;
  /** After a successful save: the site's id and code. */
  onSaved?: (saved: { id: number; code: string; created: boolean }) => void;
  /** The caller may move sites to another company (the edit then says how). */
  canMove?: boolean;
}

/** The site dialog; see the module comment. */
export function SiteDialog({ open, site, onClose, onSaved, canMove = false }: Props) {
  const { t } = useTranslation();
  const ownCompanyId = useSession((s) => s.user?.companyId);
  const [form] = Form.useForm<Values>();
  const queryClient = useQueryClient();
  const zones = useMemo(() => timeZones(site?.timezone).map((z) => ({ value: z, label: z })), [site]);

  useEffect(() => {
    if (!open) return;
    form.setFieldsValue(
      site
        ? {
            companyId: site.companyId,
            code: site.code,
            name: site.name,
            address: site.address ?? undefined,
            timezone: site.timezone,
            latitude: site.latitude,
            longitude: site.longitude,
          }
        : { companyId: ownCompanyId, timezone: DEFAULT_SITE_TIMEZONE },
    );
  }, [open, site, form, ownCompanyId]);

  const mutation = useMutation({
    mutationFn: (values: SiteForm) => saveSite(values, site?.id),
    onSuccess: ({ id }, values) => {
      showSuccess(t('devices.siteSaved'));
      void queryClient.invalidateQueries({ queryKey: registryKeys.all });
      onClose();
      onSaved?.({ id, code: values.code, created: site === null });
    },
    onError: (err) => {
      if (isApiError(err) && err.code === ErrorCode.SITE_CODE_EXISTS) {
        form.setFields([{ name: 'code', errors: [catalogueText(ErrorCode.SITE_CODE_EXISTS)] }]);
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
      ...(site || values.companyId === undefined ? {} : { companyId: values.companyId }),
      code: values.code.trim(),
      name: values.name.trim(),
      address: values.address?.trim() || null,
      timezone: values.timezone,
      latitude: values.latitude ?? null,
      longitude: values.longitude ?? null,
    });
  };

  return (
    <FormDialog
      open={open}
      title={site ? t('devices.editSite') : t('devices.addSite')}
      form={form}
      saving={mutation.isPending}
      onOk={submit}
      onCancel={onClose}
      testId="site-dialog"
      submitTestId="site-submit"
    >
      <Form<Values> form={form} layout="vertical" onFinish={() => void submit()} className="registry-form">
        <Form.Item<Values>
          name="companyId"
          label={t('devices.field.company')}
          extra={site ? (canMove ? t('devices.companyHintEdit') : undefined) : t('devices.companyHintAdd')}
          rules={[{ required: true, message: t('devices.rule.companyRequired') }]}
        >
          <CompanyPicker
            showSingle
            disabled={site !== null}
            className="registry-form__company"
            testId="site-company"
          />
        </Form.Item>
        <div className="registry-form__row">
          <Form.Item<Values>
            name="code"
            label={t('devices.field.code')}
            rules={[
              { required: true, whitespace: true, message: t('devices.rule.codeRequired') },
              { pattern: SITE_CODE_PATTERN, message: t('devices.rule.codeFormat') },
            ]}
          >
            <Input
              maxLength={TEXT_LIMITS.siteCode}
              autoComplete="off"
              placeholder={t('devices.rule.codeFormat')}
              data-testid="site-code"
            />
          </Form.Item>
          <Form.Item<Values>
            name="name"
            label={t('devices.field.siteName')}
            rules={[{ required: true, whitespace: true, message: t('devices.rule.nameRequired') }]}
          >
            <Input maxLength={TEXT_LIMITS.siteName} data-testid="site-name" />
          </Form.Item>
        </div>
        <Form.Item<Values> name="address" label={t('devices.field.address')}>
          <Input maxLength={TEXT_LIMITS.siteAddress} data-testid="site-address" />
        </Form.Item>
        <Form.Item<Values>
          name="timezone"
          label={t('devices.field.timezone')}
          extra={t('devices.timezoneHint')}
          rules={[{ required: true, message: t('devices.rule.timezoneRequired') }]}
        >
          <Select showSearch options={zones} data-testid="site-timezone" />
        </Form.Item>
        <div className="registry-form__row">
          <Form.Item<Values>
            name="latitude"
            label={t('devices.field.latitude')}
            rules={[{ type: 'number', min: -90, max: 90, message: t('devices.rule.latitude') }]}
          >
            <InputNumber className="registry-form__number" data-testid="site-latitude" />
          </Form.Item>
          <Form.Item<Values>
            name="longitude"
            label={t('devices.field.longitude')}
            rules={[{ type: 'number', min: -180, max: 180, message: t('devices.rule.longitude') }]}
          >
            <InputNumber className="registry-form__number" data-testid="site-longitude" />
          </Form.Item>
        </div>
        <button type="submit" hidden aria-hidden="true" tabIndex={-1} />
      </Form>
    </FormDialog>
  );
}
