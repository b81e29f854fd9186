/**
 * Copy a device's parameters to devices of the same type and model (`params/copy`, a batch):
 * the targets are chosen among the tree's devices of that type and model (any site of the
 * caller's), then one result per device is shown — stored (and sent, or kept for the
 * reconnect: 3033/3034) or why not (3030, 3047 another model, -100 a rule). Network and identity
 * parameters are never copied (the server leaves them out).
 * Test hooks: `params-copy` (the dialog body), `params-copy-target-<deviceId>`,
 * `params-copy-submit`, `params-copy-result-<deviceId>` (`data-code`).
 */
import type { ParamsTreeSite } from '@ess/contract';
import { useMutation } from '@tanstack/react-query';
import { Alert, Button, Checkbox, Empty, Modal, Tag } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DIALOG_WIDTH_PX } from '@/shared/config';
import { typeLabel } from '@/shared/devices';
import { copyParams, type ParamsCopyAnswer } from '../api';
import { copyTargets, type TreeDevice, waitingKey } from '../model';

interface Props {
  source: TreeDevice | null;
  sites: readonly ParamsTreeSite[];
  onClose: () => void;
  /** After a copy: the targets' states changed. */
  onCopied: () => void;
}

function CopyBody({ source, sites, onClose, onCopied }: Props & { source: TreeDevice }) {
  const { t } = useTranslation();
  const targets = copyTargets(sites, source);
  const [chosen, setChosen] = useState<number[]>([]);
  const [results, setResults] = useState<ParamsCopyAnswer['results'] | null>(null);
  const copy = useMutation({
    mutationFn: () => copyParams(source.deviceId, chosen),
    onSuccess: (answer) => {
      setResults(answer.results);
      onCopied();
    },
  });
  const snOf = (id: number) => targets.find((d) => d.deviceId === id)?.sn;

  const footer = results
    ? [
        <Button key="close" type="primary" onClick={onClose}>
          {t('params.copy.close')}
        </Button>,
      ]
    : [
        <Button key="cancel" onClick={onClose}>
          {t('common.cancel')}
        </Button>,
        <Button
          key="ok"
          type="primary"
          disabled={chosen.length === 0}
          loading={copy.isPending}
          onClick={() => copy.mutate()}
          data-testid="params-copy-submit"
        >
          {t('params.copy.submit', { count: chosen.length })}
        </Button>,
      ];

  return (
    <Modal
      open
      title={t('params.copy.title')}
      width={DIALOG_WIDTH_PX}
      onCancel={onClose}
      footer={footer}
      destroyOnHidden
    >
      <div data-testid="params-copy">
        <p>
          {t('params.copy.intro', {
            sn: source.sn,
            type: typeLabel(t, source.type),
            model: source.model ?? t('params.noModel'),
          })}
        </p>
        {results ? (
          <ul className="params-copy__results">
            {results.map((r) => (
              <li key={r.deviceId} data-testid={`params-copy-result-${r.deviceId}`} data-code={r.code}>
                <span className="params-copy__sn">{r.sn ?? snOf(r.deviceId) ?? `#${r.deviceId}`}</span>
                {r.code === 0 ? (
                  <span>
                    <Tag color="success">{t('params.copy.stored')}</Tag>
                    {r.waiting && <span className="params-muted">{t(waitingKey(r.waiting))}</span>}
                  </span>
                ) : (
                  <span>
                    <Tag color="error">{t('params.copy.failed')}</Tag>
                    <span className="params-state__reason">{r.msg}</span>
                  </span>
                )}
              </li>
            ))}
          </ul>
        ) : targets.length === 0 ? (
          <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('params.copy.none')} />
        ) : (
          <>
            <Alert type="info" showIcon title={t('params.copy.notCopied')} className="params-copy__note" />
            <Checkbox
              indeterminate={chosen.length > 0 && chosen.length < targets.length}
              checked={chosen.length === targets.length}
              onChange={(e) => setChosen(e.target.checked ? targets.map((d) => d.deviceId) : [])}
            >
              {t('params.copy.all', { count: targets.length })}
            </Checkbox>
            <Checkbox.Group
              className="params-copy__targets"
              value={chosen}
              onChange={(v) => setChosen(v as number[])}
            >
              {targets.map((d) => (
                <Checkbox
                  key={d.deviceId}
                  value={d.deviceId}
                  data-testid={`params-copy-target-${d.deviceId}`}
                >
                  <span className="params-copy__sn">{d.sn}</span>
                  <span className="params-muted"> · {d.site.siteName}</span>
                  {!d.online && <span className="params-muted"> · {t('params.offline')}</span>}
                </Checkbox>
              ))}
            </Checkbox.Group>
          </>
        )}
      </div>
    </Modal>
  );
}

export function CopyDialog(props: Props) {
  if (!props.source) return null;
  return <CopyBody {...props} source={props.source} />;
}
