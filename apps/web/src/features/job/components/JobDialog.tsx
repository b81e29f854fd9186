/**
 * Create or edit a scheduled task (issue 18 item 1; spec §3 "name, run-time expression, start
 * and end time"; monitor:job:save): name, group (the system group and the groups in use
 * suggested), kind (from `job/kinds`, its description shown; a system task keeps its kind), the
 * kind's parameters drawn from its descriptors (whole number with unit and range, yes/no, text;
 * each checked with the contract's `jobParamsProblem`), the run-time expression (six fields
 * with a hint and examples), time zone (IANA, default the browser's), optional start and end
 * (the operator's zone), misfire policy, allow overlap, timeout (s) and remark.
 *
 * Under the expression, live: its problem as the field's error (the contract's `jobCronProblem`
 * in the UI language; the form refuses to submit) or its next five fire times in the operator's
 * zone, with the task's zone beside them when it differs. A server refusal is shown in place:
 * 2000 at the expression, the rest (-100, 2001, 2005, 2007) above the buttons, the form kept.
 * Test hooks: `job-dialog`, `job-form-submit`, `job-form-name`, `-group`, `-kind`, `-kind-desc`,
 * `job-param-<key>`, `job-form-cron` (its item has class `job-cron-item`),
 * `job-form-example-<key>`, `job-form-preview` (items `job-form-preview-item`, `data-ts` = UTC
 * ms), `job-form-timezone`, `-start`, `-end`, `-misfire`, `-overlap`, `-timeout`, `-remark`,
 * `job-form-error`.
 */
import {
  ErrorCode,
  JOB_CRON_MAX,
  JOB_GROUP_MAX,
  JOB_MISFIRE_LABELS,
  JOB_MISFIRE_POLICIES,
  JOB_NAME_MAX,
  JOB_PARAM_TEXT_MAX,
  JOB_PREVIEW_COUNT,
  JOB_REMARK_MAX,
  JOB_SYSTEM_GROUP,
  JOB_TIMEOUT_S,
  type Job,
  type JobKind,
  type JobParamDescriptor,
  type JobParams,
} from '@ess/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  AutoComplete,
  Button,
  DatePicker,
  Form,
  type FormInstance,
  Input,
  InputNumber,
  Radio,
  Select,
  Switch,
} from 'antd';
import type { Dayjs } from 'dayjs';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { failureText } from '@/shared/api/client';
import { isApiError } from '@/shared/api/errors';
import { showSuccess } from '@/shared/feedback';
import { browserTimeZone, formatDateTime, zoneLabel } from '@/shared/format';
import { currentLang } from '@/shared/i18n';
import { dayjs, useDayjsLocale } from '@/shared/i18n/dayjs';
import { FormDialog } from '@/shared/ui/FormDialog';
import { jobKeys, saveJob } from '../api';
import {
  CRON_EXAMPLES,
  cronPreview,
  defaultParams,
  type JobFormValues,
  jobBody,
  jobValues,
  newJobValues,
  paramProblem,
  timeZoneChoices,
  windowOf,
  zoneName,
} from '../model';

interface Props {
  /** The task edited, `'new'` for a new one, null when closed. */
  target: Job | 'new' | null;
  kinds: JobKind[];
  /** Groups in use (suggestions). */
  groups: string[];
  onClose: () => void;
}

/** The form's fields: {@link JobFormValues} with the pickers' dates. */
type Values = Omit<JobFormValues, 'startAtMs' | 'endAtMs'> & {
  startAt: Dayjs | null;
  endAt: Dayjs | null;
};

function toValues(v: JobFormValues): Values {
  const { startAtMs, endAtMs, ...rest } = v;
  return {
    ...rest,
    startAt: startAtMs === null ? null : dayjs(startAtMs),
    endAt: endAtMs === null ? null : dayjs(endAtMs),
  };
}

function fromValues(v: Values): JobFormValues {
  const { startAt, endAt, ...rest } = v;
  return {
    ...rest,
    params: rest.params ?? {},
    remark: rest.remark ?? '',
    startAtMs: startAt ? startAt.valueOf() : null,
    endAtMs: endAt ? endAt.valueOf() : null,
  };
}

export function JobDialog({ target, kinds, groups, onClose }: Props) {
  const { t } = useTranslation();
  useDayjsLocale();
  const lang = currentLang();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<Values>();
  const [error, setError] = useState<string | null>(null);
  const editing = target !== null && target !== 'new' ? target : null;
  const browserZone = browserTimeZone();

  // biome-ignore lint/correctness/useExhaustiveDependencies: filled once per opening
  useEffect(() => {
    if (target === null) return;
    setError(null);
    form.setFieldsValue(toValues(editing ? jobValues(editing) : newJobValues(browserZone)));
  }, [target]);

  const kindId = Form.useWatch('kind', form);
  const kind = kinds.find((k) => k.kind === kindId);
  const descriptors = kind?.params ?? [];

  const zones = useMemo(
    () =>
      timeZoneChoices([browserZone, editing?.timezone ?? '']).map((z) => ({
        value: z,
        label: zoneName(z, zoneLabel),
      })),
    [browserZone, editing?.timezone],
  );

  const chooseKind = (next: string) => {
    const k = kinds.find((x) => x.kind === next);
    form.setFieldValue('params', defaultParams(k));
    if (!k) return;
    if (!form.getFieldValue('cron')?.trim() || !form.isFieldTouched('cron')) {
      form.setFieldValue('cron', k.defaultCron);
      void form.validateFields(['cron']).catch(() => undefined);
    }
    if (!editing || !form.isFieldTouched('timeoutS')) form.setFieldValue('timeoutS', k.defaultTimeoutS);
  };

  const save = useMutation({
    mutationFn: (v: JobFormValues) => saveJob(jobBody(v, descriptors), editing?.id),
    onSuccess: (_, v) => {
      showSuccess(t(editing ? 'job.done.update' : 'job.done.create', { name: v.name.trim() }));
      void queryClient.invalidateQueries({ queryKey: jobKeys.all });
      onClose();
    },
    onError: (err) => {
      if (!isApiError(err)) {
        setError((err as Error).message);
        return;
      }
      if (err.code === ErrorCode.TASK_GET_TRIGGER_FAILED) {
        form.setFields([{ name: 'cron', errors: [failureText(err.code, err.serverMsg, 'server')] }]);
        return;
      }
      if (err.code === ErrorCode.TASK_NOT_FOUND)
        void queryClient.invalidateQueries({ queryKey: jobKeys.all });
      setError(failureText(err.code, err.serverMsg, 'server'));
    },
  });

  const submit = async () => {
    setError(null);
    let values: Values;
    try {
      values = await form.validateFields();
    } catch {
      return;
    }
    save.mutate(fromValues(values));
  };

  /** The expression's problem with the form's current zone and window (the field's rule). */
  const cronRule = {
    validator: (_: unknown, cron: string | undefined) => {
      const v = form.getFieldsValue(['timezone', 'startAt', 'endAt']) as Pick<
        Values,
        'timezone' | 'startAt' | 'endAt'
      >;
      const preview = cronPreview(
        cron,
        v.timezone || browserZone,
        windowOf({ startAtMs: v.startAt?.valueOf() ?? null, endAtMs: v.endAt?.valueOf() ?? null }),
        currentLang(),
        t('job.form.cronRequired'),
      );
      return preview.problem === null ? Promise.resolve() : Promise.reject(new Error(preview.problem));
    },
  };

  return (
    <FormDialog
      open={target !== null}
      title={editing ? t('job.form.editTitle') : t('job.form.createTitle')}
      form={form}
      saving={save.isPending}
      onOk={submit}
      onCancel={onClose}
      testId="job-dialog"
      submitTestId="job-form-submit"
    >
      <Form<Values> form={form} layout="vertical" requiredMark className="job-form">
        <div className="job-form__row">
          <Form.Item
            name="name"
            label={t('job.field.name')}
            rules={[
              {
                required: true,
                whitespace: true,
                max: JOB_NAME_MAX,
                message: t('job.form.nameRule', { max: JOB_NAME_MAX }),
              },
            ]}
          >
            <Input maxLength={JOB_NAME_MAX} data-testid="job-form-name" />
          </Form.Item>
          <Form.Item
            name="group"
            label={t('job.field.group')}
            tooltip={t('job.form.groupHint', { group: JOB_SYSTEM_GROUP })}
            rules={[
              {
                required: true,
                whitespace: true,
                max: JOB_GROUP_MAX,
                message: t('job.form.groupRule', { max: JOB_GROUP_MAX }),
              },
            ]}
          >
            <AutoComplete
              options={groups.map((g) => ({ value: g }))}
              maxLength={JOB_GROUP_MAX}
              showSearch={{
                filterOption: (input, option) =>
                  String(option?.value ?? '')
                    .toLowerCase()
                    .includes(input.toLowerCase()),
              }}
              data-testid="job-form-group"
            />
          </Form.Item>
        </div>
        <Form.Item
          name="kind"
          label={t('job.field.kind')}
          rules={[{ required: true, message: t('job.form.kindRule') }]}
          extra={
            kind && (
              <span data-testid="job-form-kind-desc">
                {kind.description[lang]}
                {editing?.system && <span className="job-muted"> · {t('job.form.kindLocked')}</span>}
              </span>
            )
          }
        >
          <Select<string>
            options={kinds.map((k) => ({ value: k.kind, label: k.label[lang] }))}
            onChange={chooseKind}
            disabled={editing?.system === true}
            data-testid="job-form-kind"
          />
        </Form.Item>
        {kind && (
          <fieldset className="job-form__params" data-testid="job-form-params">
            <legend>{t('job.form.paramsTitle')}</legend>
            {descriptors.length === 0 ? (
              <p className="job-muted">{t('job.form.noParams')}</p>
            ) : (
              <div className="job-form__grid">
                {descriptors.map((d) => (
                  <ParamField key={d.key} d={d} />
                ))}
              </div>
            )}
          </fieldset>
        )}
        <Form.Item
          name="cron"
          label={t('job.field.cron')}
          className="job-cron-item"
          dependencies={['timezone', 'startAt', 'endAt']}
          rules={[cronRule]}
          required
          extra={
            <span className="job-cron-help">
              <span>{t('job.form.cronHint')}</span>
              <span className="job-examples">
                {t('job.form.examples')}
                {CRON_EXAMPLES.map((e) => (
                  <Button
                    key={e.key}
                    size="small"
                    type="link"
                    className="job-example"
                    onClick={() => {
                      form.setFieldValue('cron', e.cron);
                      void form.validateFields(['cron']).catch(() => undefined);
                    }}
                    data-testid={`job-form-example-${e.key}`}
                  >
                    <code>{e.cron}</code> {t(`job.form.example.${e.key}`)}
                  </Button>
                ))}
              </span>
            </span>
          }
        >
          <Input
            maxLength={JOB_CRON_MAX}
            className="job-mono"
            spellCheck={false}
            autoComplete="off"
            placeholder="0 0 2 * * *"
            data-testid="job-form-cron"
          />
        </Form.Item>
        <CronPreviewList form={form} browserZone={browserZone} />
        <div className="job-form__row">
          <Form.Item
            name="timezone"
            label={t('job.field.timezone')}
            tooltip={t('job.form.timezoneHint')}
            rules={[{ required: true, message: t('job.form.timezoneRule') }]}
          >
            <Select<string>
              options={zones}
              showSearch={{
                filterOption: (input, option) =>
                  String(option?.value ?? '')
                    .toLowerCase()
                    .includes(input.trim().toLowerCase()),
              }}
              virtual
              data-testid="job-form-timezone"
            />
          </Form.Item>
          <Form.Item
            name="timeoutS"
            label={t('job.field.timeoutS')}
            tooltip={t('job.form.timeoutHint')}
            rules={[
              {
                required: true,
                type: 'integer',
                min: JOB_TIMEOUT_S.min,
                max: JOB_TIMEOUT_S.max,
                message: t('job.form.timeoutRule', { min: JOB_TIMEOUT_S.min, max: JOB_TIMEOUT_S.max }),
              },
            ]}
          >
            <InputNumber
              precision={0}
              suffix={t('job.form.seconds')}
              className="job-wide"
              data-testid="job-form-timeout"
            />
          </Form.Item>
        </div>
        <div className="job-form__row">
          <Form.Item name="startAt" label={t('job.field.startAt')}>
            <DatePicker
              showTime
              allowClear
              className="job-wide"
              format="YYYY-MM-DD HH:mm:ss"
              data-testid="job-form-start"
            />
          </Form.Item>
          <Form.Item name="endAt" label={t('job.field.endAt')}>
            <DatePicker
              showTime
              allowClear
              className="job-wide"
              format="YYYY-MM-DD HH:mm:ss"
              data-testid="job-form-end"
            />
          </Form.Item>
        </div>
        <p className="job-muted job-form__window">
          {t('job.form.windowHint', { zone: zoneName(browserZone, zoneLabel) })}
        </p>
        <Form.Item name="misfire" label={t('job.field.misfire')} extra={t('job.form.misfireHint')}>
          <Radio.Group
            options={JOB_MISFIRE_POLICIES.map((p) => ({ value: p, label: JOB_MISFIRE_LABELS[p][lang] }))}
            data-testid="job-form-misfire"
          />
        </Form.Item>
        <Form.Item
          name="allowOverlap"
          label={t('job.field.allowOverlap')}
          valuePropName="checked"
          extra={t('job.form.overlapHint')}
        >
          <Switch data-testid="job-form-overlap" />
        </Form.Item>
        <Form.Item
          name="remark"
          label={t('job.field.remark')}
          rules={[{ max: JOB_REMARK_MAX, message: t('job.form.remarkRule', { max: JOB_REMARK_MAX }) }]}
        >
          <Input.TextArea rows={2} maxLength={JOB_REMARK_MAX} showCount data-testid="job-form-remark" />
        </Form.Item>
      </Form>
      {error && <Alert type="error" showIcon title={error} data-testid="job-form-error" />}
    </FormDialog>
  );
}

/** One parameter of the chosen kind, drawn from its descriptor and checked with the contract's rule. */
function ParamField({ d }: { d: JobParamDescriptor }) {
  const { t } = useTranslation();
  const lang = currentLang();
  const range =
    d.type === 'integer' && (d.min !== null || d.max !== null)
      ? t('job.form.range', { min: d.min ?? '-∞', max: d.max ?? '∞' })
      : null;
  const extra = [d.help?.[lang], range].filter(Boolean).join(' · ') || undefined;
  const rule = {
    validator: (_: unknown, value: JobParams[string] | null | undefined) => {
      const problem = paramProblem(d, value, currentLang(), t('job.form.paramRequired'));
      return problem === null ? Promise.resolve() : Promise.reject(new Error(problem));
    },
  };
  const testId = `job-param-${d.key}`;
  if (d.type === 'boolean') {
    return (
      <Form.Item name={['params', d.key]} label={d.label[lang]} valuePropName="checked" extra={extra}>
        <Switch data-testid={testId} />
      </Form.Item>
    );
  }
  if (d.type === 'integer') {
    return (
      <Form.Item name={['params', d.key]} label={d.label[lang]} rules={[rule]} required extra={extra}>
        <InputNumber precision={0} suffix={d.unit ?? undefined} className="job-wide" data-testid={testId} />
      </Form.Item>
    );
  }
  return (
    <Form.Item name={['params', d.key]} label={d.label[lang]} rules={[rule]} extra={extra}>
      <Input maxLength={JOB_PARAM_TEXT_MAX} data-testid={testId} />
    </Form.Item>
  );
}

/**
 * The next fire times of the expression as typed, in the operator's zone (the task's beside them
 * when it differs); nothing while the expression has a problem (the field shows it).
 */
function CronPreviewList({ form, browserZone }: { form: FormInstance<Values>; browserZone: string }) {
  const { t } = useTranslation();
  const cron = Form.useWatch('cron', form);
  const timezone = Form.useWatch('timezone', form) || browserZone;
  const startAt = Form.useWatch('startAt', form);
  const endAt = Form.useWatch('endAt', form);
  const preview = cronPreview(
    cron,
    timezone,
    windowOf({ startAtMs: startAt?.valueOf() ?? null, endAtMs: endAt?.valueOf() ?? null }),
    currentLang(),
    '',
  );
  if (preview.problem !== null) return null;
  const other = timezone !== browserZone;
  return (
    <div className="job-preview" data-testid="job-form-preview">
      <div className="job-preview__title">
        {t('job.form.preview', { count: JOB_PREVIEW_COUNT, zone: zoneName(browserZone, zoneLabel) })}
        {other && (
          <span className="job-muted">
            {' '}
            · {t('job.form.previewTaskZone', { zone: zoneName(timezone, zoneLabel) })}
          </span>
        )}
      </div>
      <ol className="job-preview__list">
        {preview.times.map((d) => (
          <li key={d.getTime()} data-testid="job-form-preview-item" data-ts={d.getTime()}>
            <span className="job-time">{formatDateTime(d.getTime())}</span>
            {other && <span className="job-muted job-time">{formatDateTime(d.getTime(), timezone)}</span>}
          </li>
        ))}
      </ol>
    </div>
  );
}
