/**
 * Shown inside the frame when a menu entry names a component the view registry does not know
 * (spec §2 "load the view at the given component path"), or when a view failed to load.
 * Plain markup (no antd Result) so it can sit in the first-load bundle at no cost.
 */
import { WarningOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';

/** `component`: the menu's component string; omit it for a view that failed to load. */
export function ViewNotFound({ component }: { component?: string }) {
  const { t } = useTranslation();
  return (
    <div className="page-card view-missing" data-testid="view-not-found">
      <WarningOutlined className="view-missing__icon" />
      <h2 className="view-missing__title">{t('errors.viewNotFoundTitle')}</h2>
      <p className="view-missing__text">
        {component ? t('errors.viewNotFound', { component }) : t('errors.viewLoadFailed')}
      </p>
    </div>
  );
}
