/**
 * Commissioning of a site (`params/initialize`, once per site — spec §8 "initialization already
 * performed" is 3049): writes the site's time zone and every device's defaults, with the EMS's
 * network group as the form (IP mode, and with a static IP the address, mask, gateway and DNS;
 * SIM number). Checked by the contract's validator as the EMS's network group (spec §5 "please
 * enter the correct Ip address" / "… phone number" at the field); empty optional fields and
 * fields that do not apply are not sent.
 * Test hooks: `params-init` (the dialog body), `param-input-<key>`, `param-error-<key>`,
 * `params-init-submit`.
 */
import {
  PARAM_SCHEMAS,
  type ParamIssue,
  type ParamsTreeSite,
  type ParamValue,
  paramApplies,
  paramIssueText,
  validateParams,
} from '@ess/contract';
import { useMutation } from '@tanstack/react-query';
import { Modal } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DIALOG_WIDTH_PX } from '@/shared/config';
import { showSuccess, showWarning } from '@/shared/feedback';
import { currentLang } from '@/shared/i18n';
import { initializeSite } from '../api';
import { waitingKey } from '../model';
import { RangeText } from './ParamForm';
import { ParamInput } from './ParamInput';

/** The EMS's network group: the form of the initialization. */
const NETWORK = PARAM_SCHEMAS.ems.find((g) => g.key === 'network')?.params ?? [];

function initialValues(): Record<string, ParamValue | null> {
  return Object.fromEntries(NETWORK.map((d) => [d.key, d.default]));
}

function InitializeBody({
  site,
  onClose,
  onDone,
}: {
  site: ParamsTreeSite;
  onClose: () => void;
  onDone: () => void;
}) {
  const { t } = useTranslation();
  const lang = currentLang();
  const [values, setValues] = useState(initialValues);
  const [touched, setTouched] = useState<ReadonlySet<string>>(new Set());
  const [tried, setTried] = useState(false);

  // Every field present ('' when empty) so that a required one that applies says it is empty.
  const issues = useMemo(() => {
    const all = Object.fromEntries(NETWORK.map((d) => [d.key, values[d.key] ?? '']));
    const out = new Map<string, ParamIssue>();
    for (const issue of validateParams('ems', all, { partial: true })) out.set(issue.key, issue);
    return out;
  }, [values]);
  const applying = NETWORK.filter((d) => paramApplies(d, values));

  const run = useMutation({
    mutationFn: () => {
      const network: Record<string, ParamValue> = {};
      for (const d of applying) {
        const v = values[d.key];
        if (v !== null && v !== undefined && v !== '') network[d.key] = typeof v === 'string' ? v.trim() : v;
      }
      return initializeSite(site.siteId, network);
    },
    onSuccess: (answer) => {
      showSuccess(t('params.init.done', { count: answer.devices }));
      if (answer.waiting) showWarning(t(waitingKey(answer.waiting)));
      onDone();
      onClose();
    },
  });

  const submit = () => {
    setTried(true);
    if (applying.some((d) => issues.has(d.key))) return;
    run.mutate();
  };

  return (
    <Modal
      open
      title={t('params.init.title', { site: site.siteName })}
      width={DIALOG_WIDTH_PX}
      okText={t('params.init.submit')}
      cancelText={t('common.cancel')}
      confirmLoading={run.isPending}
      onOk={submit}
      onCancel={onClose}
      destroyOnHidden
      okButtonProps={{ 'data-testid': 'params-init-submit' }}
    >
      <div data-testid="params-init" className="params-init">
        <p>{t('params.init.intro', { zone: site.timezone })}</p>
        {applying.map((def) => {
          const issue = (tried || touched.has(def.key)) && issues.get(def.key);
          const label = def.label[lang];
          return (
            <div className="params-init__field" key={def.key}>
              <span className="params-row__name">
                {def.required && (
                  <span className="params-required" aria-hidden="true">
                    *
                  </span>
                )}
                {label}
              </span>
              <ParamInput
                def={def}
                value={values[def.key] ?? null}
                onChange={(v) => {
                  setValues((cur) => ({ ...cur, [def.key]: v }));
                  setTouched((cur) => new Set(cur).add(def.key));
                }}
                invalid={Boolean(issue)}
                label={label}
              />
              <span className="params-muted">
                {def.help[lang]} <RangeText def={def} />
              </span>
              {issue && (
                <span className="params-row__error" role="alert" data-testid={`param-error-${def.key}`}>
                  {paramIssueText('ems', issue, lang)}
                </span>
              )}
            </div>
          );
        })}
      </div>
    </Modal>
  );
}

export function InitializeDialog({
  site,
  onClose,
  onDone,
}: {
  site: ParamsTreeSite | null;
  onClose: () => void;
  onDone: () => void;
}) {
  if (!site) return null;
  return <InitializeBody site={site} onClose={onClose} onDone={onDone} />;
}
