/**
 * A device's parameters, one section per group of its type's schema. Each row: the label (with
 * its help, range and rule source in the tooltip, the range also under the label), the field
 * holding what we want (edits highlighted, "was …" under them, the contract's message under a
 * value with an issue), what the device runs (`reported`), and the key's state (in sync,
 * pending, sent, applied, refused with the reason translated, timeout, drift) with its time in
 * the site's zone. A drifted key (changed on the device) is marked and offers "accept the
 * device's value" or "send ours again" (device:params:edit). Parameters that do not apply with
 * the form's values (a static IP's fields under DHCP) are hidden.
 * Test hooks: `param-row-<key>` (`data-state`, `data-edited`), `param-input-<key>`,
 * `param-error-<key>`, `param-reported-<key>`, `param-state-<key>`, `param-accept-<key>`,
 * `param-resend-<key>`, `params-extra`.
 */
import { QuestionCircleOutlined } from '@ant-design/icons';
import {
  type DeviceType,
  type ParamDef,
  type ParamIssue,
  type ParamRow,
  type ParamsDeviceResponse,
  type ParamValue,
  paramApplies,
  paramIssueText,
} from '@ess/contract';
import { Button, Popconfirm, Tag, Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import { formatDateTime, formatShortDateTime } from '@/shared/format';
import { currentLang } from '@/shared/i18n';
import {
  type Draft,
  formatParamValue,
  formValues,
  groupsOf,
  isEdited,
  rangeOf,
  refusalText,
  STATE_COLORS,
} from '../model';
import { ParamInput } from './ParamInput';

/** Parses an ISO time of the contract (null stays null). */
export const msOf = (iso: string | null | undefined): number | null => (iso ? Date.parse(iso) : null);

/** The range line of a number parameter ('25.0–40.0 °C'), or null. */
export function RangeText({ def }: { def: ParamDef }) {
  const { t } = useTranslation();
  const range = rangeOf(def);
  if (range) return <>{t('params.range', range)}</>;
  if (def.positive) return <>{t('params.positive')}</>;
  return null;
}

/** Help, range and rule source of a parameter (tooltip). */
function HelpTip({ def }: { def: ParamDef }) {
  const { t } = useTranslation();
  const lang = currentLang();
  return (
    <div className="params-help">
      <div>{def.help[lang]}</div>
      {(rangeOf(def) || def.positive) && (
        <div>
          <RangeText def={def} />
        </div>
      )}
      {def.default !== null && (
        <div>{t('params.defaultValue', { value: formatParamValue(def, def.default, lang) })}</div>
      )}
      <div className="params-help__source">{t('params.source', { source: def.source })}</div>
    </div>
  );
}

/** The state of one key: tag, time in the site's zone, and the refusal's reason. */
export function StateCell({ type, row, timeZone }: { type: DeviceType; row: ParamRow; timeZone: string }) {
  const { t } = useTranslation();
  const lang = currentLang();
  const at = msOf(row.changedAt);
  const reason = row.state === 'refused' || row.state === 'timeout' ? refusalText(type, row, lang) : null;
  return (
    <span className="params-state" data-testid={`param-state-${row.key}`} data-state={row.state}>
      <span className="params-state__head">
        <Tag color={STATE_COLORS[row.state]}>{t(`params.state.${row.state}`)}</Tag>
        {at !== null && (
          <Tooltip title={formatDateTime(at, timeZone)}>
            <span className="params-muted">{formatShortDateTime(at, timeZone)}</span>
          </Tooltip>
        )}
      </span>
      {reason && row.state === 'refused' && <span className="params-state__reason">{reason}</span>}
    </span>
  );
}

interface Props {
  detail: ParamsDeviceResponse;
  draft: Draft;
  issues: ReadonlyMap<string, ParamIssue>;
  onEdit: (key: string, value: ParamValue | null) => void;
  canEdit: boolean;
  /** Drift: keep the device's value as ours / send ours again (each a change of one key). */
  onAccept: (key: string, value: ParamValue) => void;
  onResend: (key: string, value: ParamValue) => void;
  busy: boolean;
}

function Row({
  def,
  row,
  props,
  value,
}: {
  def: ParamDef;
  row: ParamRow;
  props: Props;
  value: ParamValue | null;
}) {
  const { t } = useTranslation();
  const lang = currentLang();
  const { detail, draft, issues, onEdit, canEdit, onAccept, onResend, busy } = props;
  const type = detail.type;
  const edited = isEdited(detail, draft, def.key);
  const issue = issues.get(def.key);
  const label = def.label[lang];
  const drift = row.state === 'drift';
  const classes = ['params-row', edited && 'params-row--edited', drift && 'params-row--drift']
    .filter(Boolean)
    .join(' ');
  return (
    <div className={classes} data-testid={`param-row-${def.key}`} data-state={row.state} data-edited={edited}>
      <div className="params-row__label">
        <span className="params-row__name">
          {def.required && (
            <span className="params-required" aria-hidden="true">
              *
            </span>
          )}
          {label}
          <Tooltip title={<HelpTip def={def} />}>
            <QuestionCircleOutlined className="params-row__help-icon" aria-label={t('params.help')} />
          </Tooltip>
        </span>
        <span className="params-muted params-row__range">
          <RangeText def={def} />
        </span>
      </div>
      <div className="params-row__field">
        <ParamInput
          def={def}
          value={value}
          onChange={(v) => onEdit(def.key, v)}
          disabled={!canEdit}
          invalid={issue !== undefined}
          label={label}
        />
        {edited && (
          <span className="params-row__was">
            {t('params.was', { value: formatParamValue(def, row.desired ?? row.reported, lang) })}
          </span>
        )}
        {issue && (
          <span className="params-row__error" role="alert" data-testid={`param-error-${def.key}`}>
            {paramIssueText(type, issue, lang)}
          </span>
        )}
      </div>
      <div className="params-row__reported" data-testid={`param-reported-${def.key}`}>
        <span className="params-row__caption">{t('params.columns.reported')}</span>
        <span className={drift ? 'params-row__drift-value' : undefined}>
          {formatParamValue(def, row.reported, lang)}
        </span>
      </div>
      <div className="params-row__state">
        <StateCell type={type} row={row} timeZone={detail.timezone} />
        {drift && row.reported !== null && (
          <span className="params-drift">
            <span className="params-muted">
              {t('params.drift.hint', {
                device: formatParamValue(def, row.reported, lang),
                ours: formatParamValue(def, row.desired, lang),
              })}
            </span>
            {canEdit && (
              <span className="params-drift__actions">
                <Popconfirm
                  title={t('params.drift.accept')}
                  description={t('params.drift.acceptConfirm', {
                    value: formatParamValue(def, row.reported, lang),
                  })}
                  okText={t('common.ok')}
                  cancelText={t('common.cancel')}
                  onConfirm={() => onAccept(def.key, row.reported!)}
                >
                  <Button size="small" disabled={busy} data-testid={`param-accept-${def.key}`}>
                    {t('params.drift.accept')}
                  </Button>
                </Popconfirm>
                {row.desired !== null && (
                  <Popconfirm
                    title={t('params.drift.resend')}
                    description={t('params.drift.resendConfirm', {
                      value: formatParamValue(def, row.desired, lang),
                    })}
                    okText={t('common.ok')}
                    cancelText={t('common.cancel')}
                    onConfirm={() => onResend(def.key, row.desired!)}
                  >
                    <Button size="small" disabled={busy} data-testid={`param-resend-${def.key}`}>
                      {t('params.drift.resend')}
                    </Button>
                  </Popconfirm>
                )}
              </span>
            )}
          </span>
        )}
      </div>
    </div>
  );
}

export function ParamForm(props: Props) {
  const { t } = useTranslation();
  const lang = currentLang();
  const { detail, draft } = props;
  const values = formValues(detail, draft);
  const rows = new Map(detail.params.map((r) => [r.key, r]));
  const extra = Object.entries(detail.extra);
  return (
    <div className="params-form" data-testid="params-form">
      {groupsOf(detail.type).map((group) => {
        const shown = group.params.filter((def) => paramApplies(def, values) && rows.has(def.key));
        if (shown.length === 0) return null;
        return (
          <section className="params-group" key={group.key} data-testid={`params-group-${group.key}`}>
            <h3 className="params-group__title">{group.label[lang]}</h3>
            <div className="params-group__head" aria-hidden="true">
              <span>{t('params.columns.param')}</span>
              <span>{t('params.columns.desired')}</span>
              <span>{t('params.columns.reported')}</span>
              <span>{t('params.columns.state')}</span>
            </div>
            {shown.map((def) => (
              <Row
                key={def.key}
                def={def}
                row={rows.get(def.key)!}
                props={props}
                value={values[def.key] ?? null}
              />
            ))}
          </section>
        );
      })}
      {extra.length > 0 && (
        <section className="params-group" data-testid="params-extra">
          <h3 className="params-group__title">{t('params.extra.title')}</h3>
          <p className="params-muted">{t('params.extra.hint')}</p>
          <dl className="params-extra">
            {extra.map(([key, value]) => (
              <div key={key}>
                <dt>{key}</dt>
                <dd>{String(value)}</dd>
              </div>
            ))}
          </dl>
        </section>
      )}
    </div>
  );
}
