/**
 * /404 (spec §2): translated not-found page with a link home. Also the target of the catch-all
 * redirect for unknown paths.
 */
import { Button, Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { AntdProvider } from '@/shared/ui/AntdProvider';

/** The /404 page. */
export default function NotFoundPage() {
  const { t } = useTranslation();
  return (
    <AntdProvider>
      <div className="center-page" data-testid="not-found">
        <Result
          status="404"
          title={t('errors.notFoundTitle')}
          subTitle={t('errors.notFoundText')}
          extra={
            <Link to="/">
              <Button type="primary">{t('errors.backHome')}</Button>
            </Link>
          }
        />
      </div>
    </AntdProvider>
  );
}
