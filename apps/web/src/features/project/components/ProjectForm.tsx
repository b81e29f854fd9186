/**
 * Create or edit a project (issue 17 item 1; project:project:save), in a drawer: name, address,
 * longitude/latitude (range-checked numbers, or picked on the offline map: a click anywhere takes that
 * point's longitude/latitude, a click on a site the site's; the form's position is drawn as a pin),
 * construction party, agent and owner (companies of that type the caller sees), contract start
 * and years (1–30; the end shown), income distribution: self-investment (owner share %) or
 * leasing (rent basis and amount, capacity for rent per kWh), investors with ratios (the sum
 * shown live), maintenance and insurance CNY/month and who bears them; for a new project the
 * sites to bind and the date; every meter of the (to be) bound sites with a "storage meter" tick
 * (default unticked: a site's grid connection meter is not a storage meter; without one the bill
 * reads the PCS's registers) and, for ticked ones, CT, PT and whether they read the secondary
 * side. Only ticked meters are sent: the list is the project's declared set (issue 17 review).
 *
 * Before sending, the contract's `projectContractProblem` (the server's rule) is shown in place;
 * a server refusal is shown above the buttons (7000 at the name), the form kept.
 * Test hooks: `project-form`, `project-form-name`, `-address`, `-longitude`, `-latitude`,
 * `-construction`, `-agent`, `-owner`, `-start`, `-years`, `-end`, `-mode`, `-owner-share`,
 * `-rent-basis`, `-rent`, `-capacity`, `-maintenance`, `-insurance`, `-bearer`, `-remark`,
 * `project-investor-<i>` / `project-ratio-<i>`, `project-form-add-investor`, `project-form-sum`,
 * `project-form-sites`, `project-form-bound-from`, `project-meter-storage-<deviceId>`,
 * `project-meter-ct-<deviceId>`,
 * `project-meter-pt-<deviceId>`, `project-meter-secondary-<deviceId>`, `project-form-map`,
 * `project-form-error`, `project-form-submit`.
 */
import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import {
  type CompanyKind,
  ErrorCode,
  localTimeOf,
  PROJECT_COST_BEARER_LABELS,
  PROJECT_COST_BEARERS,
  PROJECT_INCOME_MODE_LABELS,
  PROJECT_INCOME_MODES,
  PROJECT_LIMITS,
  PROJECT_RENT_BASES,
  PROJECT_RENT_BASIS_LABELS,
  type ProjectSiteOption,
  projectContractEnd,
  projectContractProblem,
} from '@ess/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  Button,
  Checkbox,
  DatePicker,
  Divider,
  Drawer,
  Form,
  Input,
  InputNumber,
  Radio,
  Select,
  Space,
  Spin,
  Tooltip,
} from 'antd';
import { Suspense, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { failureText } from '@/shared/api/client';
import { isApiError } from '@/shared/api/errors';
import { DIALOG_WIDTH_PX } from '@/shared/config';
import { showSuccess } from '@/shared/feedback';
import { browserTimeZone } from '@/shared/format';
import { currentLang } from '@/shared/i18n';
import { dayjs, useDayjsLocale } from '@/shared/i18n/dayjs';
import { SiteMap, type SiteMapPoint, type SiteMapPosition } from '@/shared/map';
import { fetchPartnerOptions, fetchProject, fetchSiteOptions, projectKeys, saveProject } from '../api';
import { newProjectValues, type ProjectFormValues, projectBody, projectValues, ratioSumPct } from '../model';

interface Props {
  /** The project edited (id), `'new'`, or null when closed. */
  target: number | 'new' | null;
  onClose: () => void;
  /** After a project was created: its id. */
  onCreated?: (id: number) => void;
}

const DRAWER_WIDTH_PX = Math.round(DIALOG_WIDTH_PX * 1.25);

/** Date fields hold `YYYY-MM-DD` strings; the pickers show them as dayjs. */
const dateProps = {
  getValueProps: (v: string | undefined) => ({ value: v ? dayjs(v) : null }),
  normalize: (d: dayjs.Dayjs | null) => (d ? d.format('YYYY-MM-DD') : undefined),
};

export function ProjectForm({ target, onClose, onCreated }: Props) {
  const { t } = useTranslation();
  const editingId = typeof target === 'number' ? target : null;
  const detail = useQuery({
    queryKey: projectKeys.detail(editingId ?? 0),
    queryFn: () => fetchProject(editingId as number),
    enabled: editingId !== null,
  });
  const title =
    editingId === null
      ? t('project.form.titleNew')
      : t('project.form.titleEdit', { name: detail.data?.name ?? '' });
  return (
    <Drawer
      open={target !== null}
      onClose={onClose}
      title={title}
      size={`min(${DRAWER_WIDTH_PX}px, 100vw)`}
      destroyOnHidden
    >
      {target !== null &&
        (editingId !== null && !detail.data ? (
          <Spin />
        ) : (
          <FormBody
            key={String(target)}
            initial={detail.data ? projectValues(detail.data) : null}
            editingId={editingId}
            onClose={onClose}
            onCreated={onCreated}
          />
        ))}
    </Drawer>
  );
}

function FormBody({
  initial,
  editingId,
  onClose,
  onCreated,
}: {
  initial: ProjectFormValues | null;
  editingId: number | null;
  onClose: () => void;
  onCreated?: (id: number) => void;
}) {
  const { t } = useTranslation();
  useDayjsLocale();
  const lang = currentLang();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<ProjectFormValues>();
  const [error, setError] = useState<string | null>(null);
  const partners = useQuery({ queryKey: projectKeys.partners, queryFn: fetchPartnerOptions });
  const siteOptions = useQuery({ queryKey: projectKeys.sites, queryFn: fetchSiteOptions });

  // biome-ignore lint/correctness/useExhaustiveDependencies: filled once per opening
  useEffect(() => {
    form.setFieldsValue(initial ?? newProjectValues(localTimeOf(Date.now(), browserTimeZone()).date));
  }, []);

  const mode = Form.useWatch('incomeMode', form);
  const rentBasis = Form.useWatch('rentBasis', form);
  const start = Form.useWatch('contractStart', form);
  const years = Form.useWatch('contractYears', form);
  const investors = Form.useWatch('investors', form);
  const ownerShare = Form.useWatch('ownerSharePct', form);
  const siteIds = Form.useWatch('siteIds', form);

  const partnerOptions = (kind: CompanyKind) =>
    (partners.data ?? []).filter((c) => c.type === kind).map((c) => ({ value: c.id, label: c.name }));

  const sites = siteOptions.data ?? [];
  const currentProjectId = editingId;
  const bindable = sites.filter((s) => s.projectId === null || s.projectId === currentProjectId);

  // The meters listed are those of the chosen sites (new project) or of the sites bound now (edit);
  // values already in the form (ticks, CT/PT, the declared ones of an edited project) are kept.
  const boundSiteIds =
    editingId === null ? (siteIds ?? []) : sites.filter((s) => s.projectId === editingId).map((s) => s.id);
  // biome-ignore lint/correctness/useExhaustiveDependencies: follows the listed sites only
  useEffect(() => {
    if (editingId !== null && !siteOptions.data) return;
    const chosen = sites.filter((s) => boundSiteIds.includes(s.id));
    const old = new Map(
      ((form.getFieldValue('meters') ?? []) as ProjectFormValues['meters']).map((m) => [m.deviceId, m]),
    );
    form.setFieldValue(
      'meters',
      chosen.flatMap((s) =>
        s.meters.map(
          (m) =>
            old.get(m.deviceId) ?? {
              deviceId: m.deviceId,
              sn: m.sn,
              siteName: s.name,
              storage: false,
              ctRatio: 1,
              ptRatio: 1,
              readsSecondary: false,
            },
        ),
      ),
    );
  }, [JSON.stringify(boundSiteIds), sites.length]);
  const meterValues = Form.useWatch('meters', form) as ProjectFormValues['meters'] | undefined;

  const points: SiteMapPoint[] = useMemo(
    () =>
      sites
        .filter((s) => s.longitude !== null && s.latitude !== null)
        .map((s) => ({
          id: s.id,
          name: s.name,
          longitude: s.longitude as number,
          latitude: s.latitude as number,
          status: 'online' as const,
          details: [`${s.longitude?.toFixed(4)}, ${s.latitude?.toFixed(4)}`],
        })),
    [sites],
  );
  const pick = (id: number) => {
    const s = sites.find((x: ProjectSiteOption) => x.id === id);
    if (!s || s.longitude === null || s.latitude === null) return;
    form.setFieldsValue({
      longitude: s.longitude,
      latitude: s.latitude,
      address: form.getFieldValue('address') || s.name,
    });
  };
  /** A click where there is no site: that point's longitude/latitude (the address stays the operator's). */
  const pickPosition = (at: SiteMapPosition) => {
    form.setFieldsValue({ longitude: at.longitude, latitude: at.latitude });
    void form.validateFields(['longitude', 'latitude']).catch(() => undefined);
  };
  const longitude = Form.useWatch('longitude', form);
  const latitude = Form.useWatch('latitude', form);
  const picked =
    typeof longitude === 'number' && typeof latitude === 'number' ? { longitude, latitude } : null;

  const save = useMutation({
    mutationFn: (v: ProjectFormValues) => saveProject(projectBody(v), editingId ?? undefined),
    onSuccess: (answer, v) => {
      showSuccess(
        t(editingId === null ? 'project.done.create' : 'project.done.update', { name: v.name.trim() }),
      );
      void queryClient.invalidateQueries({ queryKey: projectKeys.all });
      onClose();
      if (editingId === null) onCreated?.((answer as { id: number }).id);
    },
    onError: (err) => {
      if (!isApiError(err)) {
        setError((err as Error).message);
        return;
      }
      const text = failureText(err.code, err.serverMsg, 'server');
      if (err.code === ErrorCode.PROJECT_NAME_EXISTS) form.setFields([{ name: 'name', errors: [text] }]);
      setError(text);
    },
  });

  const submit = async () => {
    setError(null);
    try {
      await form.validateFields();
    } catch {
      return;
    }
    // Every stored value (the meters' SN and site too, which have no field of their own).
    const values = form.getFieldsValue(true) as ProjectFormValues;
    const body = projectBody(values);
    const problem = projectContractProblem(
      {
        ...body,
        ownerSharePct: body.ownerSharePct ?? null,
        rentBasis: body.rentBasis ?? null,
        rentCny: body.rentCny ?? null,
        capacityKwh: body.capacityKwh ?? null,
        maintenanceCnyPerMonth: body.maintenanceCnyPerMonth ?? 0,
        insuranceCnyPerMonth: body.insuranceCnyPerMonth ?? 0,
        costBearer: body.costBearer ?? 'investors',
        meters: (body.meters ?? []).map((m) => ({ ...m, readsSecondary: m.readsSecondary ?? false })),
      },
      lang,
    );
    if (problem) {
      setError(problem.message);
      return;
    }
    save.mutate(values);
  };

  const sum = ratioSumPct({
    incomeMode: mode ?? 'self_investment',
    ownerSharePct: ownerShare,
    investors: investors ?? [],
  });
  const end = start && Number.isInteger(years) && years >= 1 ? projectContractEnd(start, years) : '—';
  const partnerSelect = (kind: CompanyKind, testId: string) => (
    <Select
      allowClear
      showSearch={{ optionFilterProp: 'label' }}
      options={partnerOptions(kind)}
      placeholder={t('project.form.noPartner')}
      loading={partners.isLoading}
      data-testid={testId}
    />
  );

  return (
    <Form form={form} layout="vertical" className="project-form" data-testid="project-form" requiredMark>
      <Divider titlePlacement="start">{t('project.form.sectionBasic')}</Divider>
      <Form.Item
        name="name"
        label={t('project.field.name')}
        rules={[{ required: true, whitespace: true, message: t('project.form.nameRequired') }]}
      >
        <Input maxLength={PROJECT_LIMITS.name} data-testid="project-form-name" />
      </Form.Item>
      <Form.Item name="address" label={t('project.field.address')}>
        <Input maxLength={PROJECT_LIMITS.address} data-testid="project-form-address" />
      </Form.Item>
      <div className="project-form-row">
        <Form.Item
          name="longitude"
          label={t('project.field.longitude')}
          rules={[{ type: 'number', min: -180, max: 180, message: t('project.form.lonRule') }]}
        >
          <InputNumber className="project-full" step={0.0001} data-testid="project-form-longitude" />
        </Form.Item>
        <Form.Item
          name="latitude"
          label={t('project.field.latitude')}
          rules={[{ type: 'number', min: -90, max: 90, message: t('project.form.latRule') }]}
        >
          <InputNumber className="project-full" step={0.0001} data-testid="project-form-latitude" />
        </Form.Item>
      </div>
      <div className="project-form-map" data-testid="project-form-map">
        <div className="project-muted">{t('project.form.pickHint')}</div>
        <Suspense fallback={null}>
          <SiteMap
            sites={points}
            statusLabels={{
              online: t('project.form.pickSites'),
              offline: t('project.detail.offline'),
              alarm: t('project.detail.offline'),
            }}
            statuses={points.length > 0 ? ['online'] : []}
            onSelect={pick}
            onPick={pickPosition}
            picked={picked}
            ariaLabel={t('project.form.pickHint')}
            loadFailedText={t('project.detail.mapFailed')}
            height={240}
          />
        </Suspense>
      </div>
      <div className="project-form-row project-form-row--3">
        <Form.Item name="constructionCompanyId" label={t('project.field.construction')}>
          {partnerSelect('construction', 'project-form-construction')}
        </Form.Item>
        <Form.Item name="agentCompanyId" label={t('project.field.agent')}>
          {partnerSelect('agent', 'project-form-agent')}
        </Form.Item>
        <Form.Item name="ownerCompanyId" label={t('project.field.owner')}>
          {partnerSelect('owner', 'project-form-owner')}
        </Form.Item>
      </div>

      <Divider titlePlacement="start">{t('project.form.sectionContract')}</Divider>
      <div className="project-form-row project-form-row--3">
        <Form.Item
          name="contractStart"
          label={t('project.field.contractStart')}
          rules={[{ required: true, message: t('project.form.startRequired') }]}
          {...dateProps}
        >
          <DatePicker className="project-full" data-testid="project-form-start" />
        </Form.Item>
        <Form.Item
          name="contractYears"
          label={t('project.field.contractYears')}
          rules={[
            {
              required: true,
              type: 'integer',
              min: PROJECT_LIMITS.yearsMin,
              max: PROJECT_LIMITS.yearsMax,
              message: t('project.form.yearsRule'),
            },
          ]}
        >
          <InputNumber className="project-full" precision={0} data-testid="project-form-years" />
        </Form.Item>
        <Form.Item label={t('project.field.contractEnd')}>
          <span className="project-form-static" data-testid="project-form-end">
            {end}
          </span>
        </Form.Item>
      </div>
      <Form.Item name="incomeMode" label={t('project.field.incomeMode')} rules={[{ required: true }]}>
        <Radio.Group
          optionType="button"
          options={PROJECT_INCOME_MODES.map((m) => ({
            value: m,
            label: PROJECT_INCOME_MODE_LABELS[m][lang],
          }))}
          data-testid="project-form-mode"
        />
      </Form.Item>
      {mode === 'leasing' ? (
        <div className="project-form-row project-form-row--3">
          <Form.Item name="rentBasis" label={t('project.field.rentBasis')}>
            <Select
              options={PROJECT_RENT_BASES.map((b) => ({
                value: b,
                label: PROJECT_RENT_BASIS_LABELS[b][lang],
              }))}
              data-testid="project-form-rent-basis"
            />
          </Form.Item>
          <Form.Item name="rentCny" label={t('project.field.rentCny')}>
            <InputNumber
              className="project-full"
              min={0}
              suffix={
                rentBasis === 'per_kwh_capacity'
                  ? t('project.form.rentUnitCapacity')
                  : t('project.form.rentUnitMonthly')
              }
              data-testid="project-form-rent"
            />
          </Form.Item>
          <Form.Item name="capacityKwh" label={t('project.field.capacityKwh')}>
            <InputNumber className="project-full" min={0} data-testid="project-form-capacity" />
          </Form.Item>
        </div>
      ) : (
        <Form.Item name="ownerSharePct" label={t('project.field.ownerSharePct')}>
          <InputNumber
            className="project-narrow"
            min={0}
            max={100}
            precision={2}
            data-testid="project-form-owner-share"
          />
        </Form.Item>
      )}
      <div className="project-form-label">{t('project.field.investors')}</div>
      <Form.List name="investors">
        {(fields, { add, remove }) => (
          <div className="project-investors">
            {fields.map((f, i) => (
              <Space.Compact key={f.key} className="project-investor-row" block>
                <Form.Item
                  name={[f.name, 'companyId']}
                  noStyle
                  rules={[{ required: true, message: t('project.form.investorRequired') }]}
                >
                  <Select
                    showSearch={{ optionFilterProp: 'label' }}
                    options={partnerOptions('investor')}
                    placeholder={t('project.form.investor')}
                    className="project-investor-company"
                    data-testid={`project-investor-${i}`}
                  />
                </Form.Item>
                <Form.Item name={[f.name, 'ratioPct']} noStyle>
                  <InputNumber
                    min={0}
                    max={100}
                    precision={2}
                    suffix="%"
                    placeholder={t('project.form.ratioPct')}
                    className="project-investor-ratio"
                    data-testid={`project-ratio-${i}`}
                  />
                </Form.Item>
                <Button
                  icon={<DeleteOutlined />}
                  aria-label={t('common.delete')}
                  disabled={fields.length <= 1}
                  onClick={() => remove(f.name)}
                />
              </Space.Compact>
            ))}
            <div className="project-line">
              <Button
                icon={<PlusOutlined />}
                onClick={() => add({ ratioPct: null })}
                disabled={fields.length >= PROJECT_LIMITS.investorsMax}
                data-testid="project-form-add-investor"
              >
                {t('project.form.addInvestor')}
              </Button>
              <span
                className={sum === 100 ? 'project-sum project-sum--ok' : 'project-sum project-sum--bad'}
                data-testid="project-form-sum"
              >
                {t(mode === 'leasing' ? 'project.form.ratioSumLeasing' : 'project.form.ratioSum', {
                  sum: sum.toFixed(2),
                })}
              </span>
            </div>
          </div>
        )}
      </Form.List>
      <div className="project-form-row project-form-row--3">
        <Form.Item name="maintenanceCnyPerMonth" label={t('project.field.maintenanceCnyPerMonth')}>
          <InputNumber
            className="project-full"
            min={0}
            precision={2}
            data-testid="project-form-maintenance"
          />
        </Form.Item>
        <Form.Item name="insuranceCnyPerMonth" label={t('project.field.insuranceCnyPerMonth')}>
          <InputNumber className="project-full" min={0} precision={2} data-testid="project-form-insurance" />
        </Form.Item>
        <Form.Item name="costBearer" label={t('project.field.costBearer')}>
          <Select
            options={PROJECT_COST_BEARERS.map((b) => ({
              value: b,
              label: PROJECT_COST_BEARER_LABELS[b][lang],
            }))}
            data-testid="project-form-bearer"
          />
        </Form.Item>
      </div>

      <Divider titlePlacement="start">{t('project.form.sectionSites')}</Divider>
      {editingId === null && (
        <div className="project-form-row">
          <Form.Item name="siteIds" label={t('project.form.sites')} extra={t('project.form.sitesHint')}>
            <Select
              mode="multiple"
              showSearch={{ optionFilterProp: 'label' }}
              loading={siteOptions.isLoading}
              options={sites.map((s) => ({
                value: s.id,
                label: s.name,
                disabled: !bindable.includes(s),
                title: s.projectName ? t('project.form.boundElsewhere', { project: s.projectName }) : s.name,
              }))}
              data-testid="project-form-sites"
            />
          </Form.Item>
          <Form.Item
            name="boundFrom"
            label={t('project.form.boundFrom')}
            extra={t('project.form.boundFromHint')}
            {...dateProps}
          >
            <DatePicker className="project-full" data-testid="project-form-bound-from" />
          </Form.Item>
        </div>
      )}
      <div className="project-form-label">{t('project.field.meters')}</div>
      <div className="project-muted project-meter-hint" data-testid="project-meter-hint">
        {t('project.form.storageHint')}
      </div>
      <Form.List name="meters">
        {(fields) =>
          fields.length === 0 ? (
            <div className="project-muted">{t('project.form.noMeters')}</div>
          ) : (
            <div className="project-meters">
              {fields.map((f) => {
                // The row's SN and site are stored values without a field of their own: read from the store.
                const m = form.getFieldValue(['meters', f.name]) as
                  | ProjectFormValues['meters'][number]
                  | undefined;
                if (!m) return null;
                const storage = meterValues?.[f.name]?.storage === true;
                return (
                  <div key={f.key} className="project-meter-row">
                    <span className="project-meter-sn">
                      <span className="project-strong">{m.sn}</span>
                      <span className="project-muted">{m.siteName}</span>
                    </span>
                    <Form.Item name={[f.name, 'storage']} valuePropName="checked" noStyle>
                      <Checkbox data-testid={`project-meter-storage-${m.deviceId}`}>
                        {t('project.form.storageMeter')}
                      </Checkbox>
                    </Form.Item>
                    {storage && (
                      <>
                        <Form.Item name={[f.name, 'ctRatio']} noStyle>
                          <InputNumber
                            min={0}
                            prefix="CT"
                            className="project-meter-num"
                            aria-label={t('project.form.ct')}
                            data-testid={`project-meter-ct-${m.deviceId}`}
                          />
                        </Form.Item>
                        <Form.Item name={[f.name, 'ptRatio']} noStyle>
                          <InputNumber
                            min={0}
                            prefix="PT"
                            className="project-meter-num"
                            aria-label={t('project.form.pt')}
                            data-testid={`project-meter-pt-${m.deviceId}`}
                          />
                        </Form.Item>
                        <Tooltip title={t('project.form.secondaryHint')}>
                          <span>
                            <Form.Item name={[f.name, 'readsSecondary']} valuePropName="checked" noStyle>
                              <Checkbox data-testid={`project-meter-secondary-${m.deviceId}`}>
                                {t('project.form.secondary')}
                              </Checkbox>
                            </Form.Item>
                          </span>
                        </Tooltip>
                      </>
                    )}
                  </div>
                );
              })}
            </div>
          )
        }
      </Form.List>
      <Form.Item name="remark" label={t('project.field.remark')} className="project-form-remark">
        <Input.TextArea
          maxLength={PROJECT_LIMITS.remark}
          autoSize={{ minRows: 2, maxRows: 4 }}
          data-testid="project-form-remark"
        />
      </Form.Item>
      {error && (
        <Alert
          type="error"
          showIcon
          message={error}
          className="project-form-error"
          data-testid="project-form-error"
        />
      )}
      <div className="project-form-buttons">
        <Button onClick={onClose}>{t('common.cancel')}</Button>
        <Button
          type="primary"
          loading={save.isPending}
          onClick={() => void submit()}
          data-testid="project-form-submit"
        >
          {t('common.save')}
        </Button>
      </div>
    </Form>
  );
}
