/**
 * "New upgrade batch" (issue 16 item 3, firmware:upgrade:create), in three steps:
 * 1. a published package (only those can start upgrades; 3061 otherwise);
 * 2. the devices: every device of the package's type in the caller's scope
 *    (`upgrade/candidates`), filtered by site, company, model, current version and SN/site
 *    keyword; the ones that cannot take it are shown, unselectable, with why (another type or
 *    model, already on the version, in another running batch, offline, no gateway). "Let
 *    offline devices wait" makes offline devices eligible: they start when they reconnect,
 *    until the deadline. The choice is kept across filter changes;
 * 3. the rollout: first wave size, then wave size, failure rate (%) above which the batch
 *    pauses itself, downloads at once, per-phase timeouts (s), deadline (the viewer's zone, a
 *    batch spans sites; the zone is named), remark — defaults are the contract's.
 * The server checks it all again (-100 a field named, 7039 a device that became ineligible,
 * 7042 a past deadline) and its refusal is shown in the UI language. On success the batch's
 * detail opens (`onCreated`).
 * Test hooks: `upgrade-wizard`, `upgrade-wizard-package`, `upgrade-wizard-next`,
 * `upgrade-wizard-back`, `upgrade-wizard-create`, `upgrade-candidates` (rows `data-row-key` =
 * device id, `data-exclusion`), `upgrade-filter-site`, `-company`, `-model`, `-version`,
 * `upgrade-candidate-keyword`, `upgrade-include-offline`, `upgrade-select-eligible`,
 * `upgrade-chosen` (`data-count`), `upgrade-field-<name>`.
 */
import {
  deviceTypeLabel,
  type FirmwarePackage,
  MAX_PAGE_SIZE,
  UPGRADE_EXCLUSION_LABELS,
  type UpgradeCandidate,
} from '@ess/contract';
import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import {
  Alert,
  Button,
  DatePicker,
  Descriptions,
  Form,
  Input,
  InputNumber,
  Modal,
  Select,
  Steps,
  Switch,
  Table,
  type TableColumnsType,
  Tag,
} from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { type HTMLAttributes, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { browserTimeZone, NO_VALUE, zoneLabel } from '@/shared/format';
import { currentLang } from '@/shared/i18n';
import { type CandidatesQuery, createBatch, fetchCandidates, fetchPackages, firmwareKeys } from '../api';
import { BATCH_DEFAULTS, BATCH_LIMITS, BATCH_REMARK_MAX, formatBytes, UPGRADE_PHASES } from '../model';

const DEFAULTS = BATCH_DEFAULTS;
const PHASES = UPGRADE_PHASES;
/** A new batch's deadline: a day from now. */
const DEFAULT_DEADLINE_H = 24;

interface Rollout {
  firstWaveSize: number;
  waveSize: number;
  failureRateThresholdPct: number;
  maxConcurrentDownloads: number;
  phaseTimeoutsS: Record<(typeof PHASES)[number], number>;
  deadline: Dayjs;
  remark?: string;
}

interface Filters {
  siteId?: number;
  companyName?: string;
  model?: string;
  currentVersion?: string;
  keyword?: string;
}

export function BatchWizard({
  open,
  onClose,
  onCreated,
}: {
  open: boolean;
  onClose: () => void;
  onCreated: (id: number) => void;
}) {
  const { t } = useTranslation();
  const lang = currentLang();
  const [step, setStep] = useState(0);
  const [packageId, setPackageId] = useState<number | undefined>();
  const [includeOffline, setIncludeOffline] = useState(false);
  const [filters, setFilters] = useState<Filters>({});
  const [chosen, setChosen] = useState<number[]>([]);
  const [form] = Form.useForm<Rollout>();

  const packages = useQuery({
    queryKey: firmwareKeys.published,
    queryFn: () => fetchPackages({ pageNum: 1, pageSize: MAX_PAGE_SIZE, state: 'published' }),
    enabled: open,
    staleTime: 0,
  });
  const pkg: FirmwarePackage | undefined = packages.data?.list.find((p) => p.id === packageId);

  // Every candidate of the package (for the filters' options) and the filtered ones (the table).
  const base: CandidatesQuery | null = packageId ? { packageId, includeOffline } : null;
  const all = useQuery({
    queryKey: firmwareKeys.candidates(base ?? { packageId: 0 }),
    queryFn: () => fetchCandidates(base as CandidatesQuery),
    enabled: open && base !== null,
  });
  const filtered: CandidatesQuery | null = base && {
    ...base,
    ...(filters.siteId ? { siteId: filters.siteId } : {}),
    ...(filters.model ? { model: filters.model } : {}),
    ...(filters.currentVersion ? { currentVersion: filters.currentVersion } : {}),
    ...(filters.keyword ? { keyword: filters.keyword } : {}),
  };
  const narrowed = filtered !== null && Object.keys(filtered).length > Object.keys(base ?? {}).length;
  const some = useQuery({
    queryKey: firmwareKeys.candidates(filtered ?? { packageId: 0 }),
    queryFn: () => fetchCandidates(filtered as CandidatesQuery),
    enabled: open && narrowed,
    placeholderData: keepPreviousData,
  });
  const shownAnswer = narrowed ? some.data : all.data;
  // The company filter is applied here: candidates name their company, not its id.
  const rows = useMemo(
    () =>
      (shownAnswer?.list ?? []).filter((c) => !filters.companyName || c.companyName === filters.companyName),
    [shownAnswer, filters.companyName],
  );

  const options = useMemo(() => {
    const list = all.data?.list ?? [];
    const uniq = (values: (string | null)[]) =>
      [...new Set(values.filter((v): v is string => !!v))].sort().map((v) => ({ value: v, label: v }));
    const sites = new Map<number, string>();
    for (const c of list) sites.set(c.siteId, c.siteName);
    return {
      sites: [...sites]
        .map(([value, label]) => ({ value, label }))
        .sort((a, b) => a.label.localeCompare(b.label)),
      companies: uniq(list.map((c) => c.companyName)),
      models: uniq(list.map((c) => c.model)),
      versions: uniq(list.map((c) => c.firmware)),
    };
  }, [all.data]);

  const eligibleIds = useMemo(
    () => new Set((all.data?.list ?? []).filter((c) => !c.exclusion).map((c) => c.deviceId)),
    [all.data],
  );
  const chosenNow = chosen.filter((id) => eligibleIds.has(id));

  const create = useMutation({
    mutationFn: (r: Rollout) =>
      createBatch({
        packageId: packageId as number,
        deviceIds: chosenNow,
        firstWaveSize: r.firstWaveSize,
        waveSize: r.waveSize,
        failureRateThresholdPct: r.failureRateThresholdPct,
        maxConcurrentDownloads: r.maxConcurrentDownloads,
        phaseTimeoutsS: r.phaseTimeoutsS,
        deadlineAt: r.deadline.valueOf(),
        includeOffline,
        remark: r.remark?.trim() || null,
      }),
    onSuccess: (answer) => onCreated(answer.id),
  });

  const reset = () => {
    setStep(0);
    setPackageId(undefined);
    setIncludeOffline(false);
    setFilters({});
    setChosen([]);
    form.resetFields();
    create.reset();
  };

  const exclusion = (c: UpgradeCandidate) =>
    c.exclusion ? (
      <Tag color={c.exclusion === 'offline' ? 'default' : 'warning'} className="fw-reason-tag">
        {UPGRADE_EXCLUSION_LABELS[c.exclusion][lang]}
      </Tag>
    ) : (
      <Tag color="success">{t('firmware.wizard.eligible')}</Tag>
    );

  // biome-ignore lint/correctness/useExhaustiveDependencies: column texts depend on the language
  const columns = useMemo<TableColumnsType<UpgradeCandidate>>(
    () => [
      {
        key: 'sn',
        title: t('firmware.wizard.device'),
        render: (_, c) => (
          <span className="fw-stack">
            <code className="fw-mono">{c.sn}</code>
            <span className="fw-muted fw-nowrap">
              {deviceTypeLabel(c.type, lang)} · {c.model ?? NO_VALUE}
            </span>
          </span>
        ),
      },
      {
        key: 'firmware',
        title: t('firmware.wizard.current'),
        render: (_, c) => <code className="fw-mono">{c.firmware ?? NO_VALUE}</code>,
      },
      {
        key: 'site',
        title: t('firmware.wizard.site'),
        render: (_, c) => (
          <span className="fw-stack">
            <span className="fw-nowrap">{c.siteName}</span>
            <span className="fw-muted fw-nowrap">{c.companyName}</span>
          </span>
        ),
      },
      {
        key: 'state',
        title: t('firmware.wizard.eligibility'),
        render: (_, c) => (
          <span className="fw-stack">
            {exclusion(c)}
            <span className="fw-muted fw-nowrap">
              {c.online ? t('firmware.wizard.online') : t('firmware.wizard.offline')}
            </span>
          </span>
        ),
      },
    ],
    [lang],
  );

  const next = async () => {
    if (step === 2) {
      const values = await form.validateFields().catch(() => null);
      if (values) create.mutate(values);
      return;
    }
    setStep(step + 1);
  };
  const canNext = step === 0 ? pkg !== undefined : step === 1 ? chosenNow.length > 0 : !create.isPending;

  return (
    <Modal
      open={open}
      title={t('firmware.wizard.title')}
      width={980}
      onCancel={onClose}
      afterClose={reset}
      destroyOnHidden
      maskClosable={false}
      footer={[
        step > 0 && (
          <Button key="back" onClick={() => setStep(step - 1)} data-testid="upgrade-wizard-back">
            {t('firmware.wizard.back')}
          </Button>
        ),
        <Button key="cancel" onClick={onClose}>
          {t('common.cancel')}
        </Button>,
        <Button
          key="next"
          type="primary"
          disabled={!canNext}
          loading={create.isPending}
          onClick={() => void next()}
          data-testid={step === 2 ? 'upgrade-wizard-create' : 'upgrade-wizard-next'}
        >
          {step === 2 ? t('firmware.wizard.create', { count: chosenNow.length }) : t('firmware.wizard.next')}
        </Button>,
      ]}
    >
      <div data-testid="upgrade-wizard" className="fw-wizard">
        <Steps
          size="small"
          current={step}
          className="fw-wizard__steps"
          items={[
            { title: t('firmware.wizard.stepPackage') },
            { title: t('firmware.wizard.stepDevices') },
            { title: t('firmware.wizard.stepRollout') },
          ]}
        />
        {step === 0 && (
          <div className="fw-wizard__body">
            <Form layout="vertical">
              <Form.Item label={t('firmware.wizard.package')} required>
                <Select<number>
                  value={packageId}
                  onChange={(id) => {
                    setPackageId(id);
                    setChosen([]);
                    setFilters({});
                  }}
                  loading={packages.isLoading}
                  showSearch={{ optionFilterProp: 'label' }}
                  placeholder={t('firmware.wizard.packagePlaceholder')}
                  options={(packages.data?.list ?? []).map((p) => ({
                    value: p.id,
                    label: `${p.name} ${p.version} · ${deviceTypeLabel(p.deviceType, lang)}`,
                  }))}
                  notFoundContent={packages.isLoading ? undefined : t('firmware.wizard.noPublished')}
                  data-testid="upgrade-wizard-package"
                />
              </Form.Item>
            </Form>
            {pkg && (
              <Descriptions
                size="small"
                bordered
                column={{ xs: 1, sm: 2 }}
                items={[
                  { key: 'v', label: t('firmware.field.version'), children: <code>{pkg.version}</code> },
                  {
                    key: 't',
                    label: t('firmware.field.target'),
                    children: `${deviceTypeLabel(pkg.deviceType, lang)} · ${
                      pkg.models.length > 0 ? pkg.models.join(', ') : t('firmware.allModels')
                    }`,
                  },
                  { key: 's', label: t('firmware.field.size'), children: formatBytes(pkg.sizeBytes) },
                  {
                    key: 'n',
                    label: t('firmware.field.note'),
                    children: (lang === 'zh' ? pkg.releaseNoteZh : pkg.releaseNoteEn) ?? NO_VALUE,
                  },
                ]}
              />
            )}
          </div>
        )}
        {step === 1 && (
          <div className="fw-wizard__body">
            <div className="fw-toolbar fw-wizard__filters">
              <Select<number>
                allowClear
                value={filters.siteId}
                onChange={(siteId) => setFilters((f) => ({ ...f, siteId }))}
                options={options.sites}
                showSearch={{ optionFilterProp: 'label' }}
                placeholder={t('firmware.wizard.allSites')}
                aria-label={t('firmware.wizard.site')}
                className="fw-toolbar__select"
                data-testid="upgrade-filter-site"
              />
              {options.companies.length > 1 && (
                <Select<string>
                  allowClear
                  value={filters.companyName}
                  onChange={(companyName) => setFilters((f) => ({ ...f, companyName }))}
                  options={options.companies}
                  placeholder={t('firmware.wizard.allCompanies')}
                  aria-label={t('firmware.wizard.company')}
                  className="fw-toolbar__select"
                  data-testid="upgrade-filter-company"
                />
              )}
              <Select<string>
                allowClear
                value={filters.model}
                onChange={(model) => setFilters((f) => ({ ...f, model }))}
                options={options.models}
                placeholder={t('firmware.wizard.allModels')}
                aria-label={t('firmware.wizard.model')}
                className="fw-toolbar__select"
                data-testid="upgrade-filter-model"
              />
              <Select<string>
                allowClear
                value={filters.currentVersion}
                onChange={(currentVersion) => setFilters((f) => ({ ...f, currentVersion }))}
                options={options.versions}
                placeholder={t('firmware.wizard.allVersions')}
                aria-label={t('firmware.wizard.current')}
                className="fw-toolbar__select"
                data-testid="upgrade-filter-version"
              />
              <Input.Search
                allowClear
                placeholder={t('firmware.wizard.keyword')}
                onSearch={(v) => setFilters((f) => ({ ...f, keyword: v.trim() || undefined }))}
                className="fw-toolbar__keyword"
                data-testid="upgrade-candidate-keyword"
              />
            </div>
            <div className="fw-wizard__selectbar">
              <span className="fw-switch">
                <Switch
                  id="upgrade-include-offline"
                  size="small"
                  checked={includeOffline}
                  onChange={setIncludeOffline}
                  data-testid="upgrade-include-offline"
                />
                <label htmlFor="upgrade-include-offline">{t('firmware.wizard.includeOffline')}</label>
              </span>
              <Button
                size="small"
                onClick={() =>
                  setChosen((c) => [
                    ...new Set([...c, ...rows.filter((r) => !r.exclusion).map((r) => r.deviceId)]),
                  ])
                }
                disabled={!rows.some((r) => !r.exclusion)}
                data-testid="upgrade-select-eligible"
              >
                {t('firmware.wizard.selectEligible')}
              </Button>
              <span className="fw-muted" data-testid="upgrade-chosen" data-count={chosenNow.length}>
                {t('firmware.wizard.chosen', {
                  chosen: chosenNow.length,
                  eligible: all.data?.eligible ?? 0,
                  total: all.data?.total ?? 0,
                })}
              </span>
            </div>
            {shownAnswer?.truncated && (
              <Alert
                type="warning"
                showIcon
                className="fw-form__alert"
                title={t('firmware.wizard.truncated')}
              />
            )}
            <Table<UpgradeCandidate>
              rowKey="deviceId"
              size="small"
              columns={columns}
              dataSource={rows}
              loading={all.isLoading || (narrowed && some.isFetching)}
              scroll={{ x: 'max-content', y: 360 }}
              pagination={false}
              locale={{ emptyText: t('firmware.wizard.noCandidates') }}
              onRow={(c) => ({ 'data-exclusion': c.exclusion ?? 'none' }) as HTMLAttributes<HTMLElement>}
              rowSelection={{
                selectedRowKeys: chosenNow,
                preserveSelectedRowKeys: true,
                getCheckboxProps: (c) => ({
                  disabled: c.exclusion !== null,
                  'aria-label': c.sn,
                }),
                onChange: (keys) => {
                  const shown = new Set(rows.map((r) => r.deviceId));
                  setChosen((c) => [...c.filter((id) => !shown.has(id)), ...(keys as number[])]);
                },
              }}
              data-testid="upgrade-candidates"
            />
          </div>
        )}
        {step === 2 && (
          <div className="fw-wizard__body">
            <Form<Rollout>
              form={form}
              layout="vertical"
              preserve
              initialValues={{
                firstWaveSize: Math.min(DEFAULTS.firstWaveSize, Math.max(1, chosenNow.length)),
                waveSize: DEFAULTS.waveSize,
                failureRateThresholdPct: DEFAULTS.failureRateThresholdPct,
                maxConcurrentDownloads: DEFAULTS.maxConcurrentDownloads,
                phaseTimeoutsS: { ...DEFAULTS.phaseTimeoutsS },
                deadline: dayjs().add(DEFAULT_DEADLINE_H, 'hour'),
              }}
            >
              <div className="fw-form__grid">
                <Form.Item
                  name="firstWaveSize"
                  label={t('firmware.wizard.firstWave')}
                  rules={[{ required: true }]}
                >
                  <InputNumber
                    min={BATCH_LIMITS.waveSize.min}
                    max={BATCH_LIMITS.waveSize.max}
                    precision={0}
                    className="fw-number"
                    data-testid="upgrade-field-firstWaveSize"
                  />
                </Form.Item>
                <Form.Item name="waveSize" label={t('firmware.wizard.waveSize')} rules={[{ required: true }]}>
                  <InputNumber
                    min={BATCH_LIMITS.waveSize.min}
                    max={BATCH_LIMITS.waveSize.max}
                    precision={0}
                    className="fw-number"
                    data-testid="upgrade-field-waveSize"
                  />
                </Form.Item>
                <Form.Item
                  name="failureRateThresholdPct"
                  label={t('firmware.wizard.threshold')}
                  tooltip={t('firmware.wizard.thresholdHint')}
                  rules={[{ required: true }]}
                >
                  <InputNumber
                    min={BATCH_LIMITS.failureRateThresholdPct.min}
                    max={BATCH_LIMITS.failureRateThresholdPct.max}
                    precision={0}
                    className="fw-number"
                    data-testid="upgrade-field-threshold"
                  />
                </Form.Item>
                <Form.Item
                  name="maxConcurrentDownloads"
                  label={t('firmware.wizard.concurrent')}
                  rules={[{ required: true }]}
                >
                  <InputNumber
                    min={BATCH_LIMITS.maxConcurrentDownloads.min}
                    max={BATCH_LIMITS.maxConcurrentDownloads.max}
                    precision={0}
                    className="fw-number"
                    data-testid="upgrade-field-concurrent"
                  />
                </Form.Item>
              </div>
              <h4 className="fw-subtitle">{t('firmware.wizard.timeouts')}</h4>
              <div className="fw-form__grid">
                {PHASES.map((phase) => (
                  <Form.Item
                    key={phase}
                    name={['phaseTimeoutsS', phase]}
                    label={t(`firmware.wizard.timeout.${phase}`)}
                    rules={[{ required: true }]}
                  >
                    <InputNumber
                      min={BATCH_LIMITS.phaseTimeoutS.min}
                      max={BATCH_LIMITS.phaseTimeoutS.max}
                      precision={0}
                      className="fw-number"
                      data-testid={`upgrade-field-timeout-${phase}`}
                    />
                  </Form.Item>
                ))}
              </div>
              <div className="fw-form__grid fw-form__grid--2">
                <Form.Item
                  name="deadline"
                  label={t('firmware.wizard.deadline')}
                  extra={t('firmware.wizard.deadlineZone', { zone: zoneLabel(browserTimeZone()) })}
                  rules={[
                    { required: true, message: t('firmware.wizard.deadlineRequired') },
                    {
                      validator: (_, v: Dayjs | null) =>
                        !v || v.isAfter(dayjs())
                          ? Promise.resolve()
                          : Promise.reject(new Error(t('firmware.wizard.deadlinePast'))),
                    },
                  ]}
                >
                  <DatePicker
                    showTime={{ format: 'HH:mm' }}
                    format="YYYY-MM-DD HH:mm"
                    disabledDate={(d) => d.isBefore(dayjs(), 'day')}
                    className="fw-wide"
                    data-testid="upgrade-field-deadline"
                  />
                </Form.Item>
                <Form.Item name="remark" label={t('firmware.wizard.remark')}>
                  <Input maxLength={BATCH_REMARK_MAX} data-testid="upgrade-field-remark" />
                </Form.Item>
              </div>
            </Form>
            <Alert
              type="info"
              showIcon
              className="fw-form__alert"
              title={t('firmware.wizard.summary', {
                count: chosenNow.length,
                name: pkg?.name ?? '',
                version: pkg?.version ?? '',
              })}
            />
          </div>
        )}
      </div>
    </Modal>
  );
}
