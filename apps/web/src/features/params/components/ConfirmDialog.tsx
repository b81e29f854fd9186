/**
 * The confirmation before `params/set`: every change of the draft, old → new with units, the
 * device it goes to, and whether its gateway is online (offline: kept and sent at the reconnect).
 * Test hooks: `params-confirm` (the list), `params-confirm-row-<key>`, `params-confirm-ok`.
 */
import { ArrowRightOutlined } from '@ant-design/icons';
import { Alert, Modal } from 'antd';
import { useTranslation } from 'react-i18next';
import { DIALOG_WIDTH_PX } from '@/shared/config';
import { currentLang } from '@/shared/i18n';
import { formatParamValue, type ParamChange } from '../model';

interface Props {
  open: boolean;
  sn: string;
  online: boolean;
  changes: readonly ParamChange[];
  sending: boolean;
  onOk: () => void;
  onCancel: () => void;
}

export function ConfirmDialog({ open, sn, online, changes, sending, onOk, onCancel }: Props) {
  const { t } = useTranslation();
  const lang = currentLang();
  return (
    <Modal
      open={open}
      title={t('params.confirm.title')}
      width={DIALOG_WIDTH_PX}
      okText={t('params.confirm.ok')}
      cancelText={t('common.cancel')}
      confirmLoading={sending}
      onOk={onOk}
      onCancel={onCancel}
      destroyOnHidden
      okButtonProps={{ 'data-testid': 'params-confirm-ok' }}
    >
      <p>{t('params.confirm.intro', { sn, count: changes.length })}</p>
      <ul className="params-confirm" data-testid="params-confirm">
        {changes.map((c) => (
          <li key={c.key} data-testid={`params-confirm-row-${c.key}`}>
            <span className="params-confirm__label">{c.def.label[lang]}</span>
            <span className="params-confirm__values">
              <span className="params-confirm__old">{formatParamValue(c.def, c.from, lang)}</span>
              <ArrowRightOutlined aria-label={t('params.confirm.to')} />
              <strong>{formatParamValue(c.def, c.to, lang)}</strong>
            </span>
          </li>
        ))}
      </ul>
      {!online && <Alert type="warning" showIcon title={t('params.confirm.offline')} />}
    </Modal>
  );
}
