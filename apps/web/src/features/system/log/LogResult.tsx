/**
 * The outcome of a logged call: code 0 a green "success" tag, any other code a red tag with the
 * code and its catalogue text in the UI language (contract `errorMessage`).
 */
import { errorMessage, SUCCESS } from '@ess/contract';
import { Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import { currentLang } from '@/shared/i18n';

export function LogResult({ code }: { code: number }) {
  const { t } = useTranslation();
  if (code === SUCCESS) return <Tag color="green">{t('oplog.success')}</Tag>;
  return (
    <span className="oplog-result">
      <Tag color="red">{code}</Tag>
      <span className="oplog-result__text">{errorMessage(code, currentLang())}</span>
    </span>
  );
}
