/**
 * Centred spinner for a page or view that is loading (lazy chunk, session restore). Pure CSS
 * (no antd Spin) because it is part of the first load of every page.
 */
import { useTranslation } from 'react-i18next';

/** Spinner with "Loading…"; `fullscreen` fills the viewport. */
export function PageLoading({ fullscreen = false }: { fullscreen?: boolean }) {
  const { t } = useTranslation();
  return (
    <div
      className={fullscreen ? 'page-loading page-loading--fullscreen' : 'page-loading'}
      role="status"
      aria-live="polite"
      data-testid="page-loading"
    >
      <span className="page-loading__spinner" aria-hidden="true" />
      <span className="page-loading__text">{t('app.loading')}</span>
    </div>
  );
}
