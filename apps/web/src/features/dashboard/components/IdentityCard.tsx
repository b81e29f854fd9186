/**
 * The signed-in operator in one line: greeting, company, roles, administrator badge.
 * Test hook: `dashboard-profile`.
 */
import { CrownOutlined, UserOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import type { SessionUser } from '@/features/auth';

/** Compact identity of `user`. */
export function IdentityCard({ user }: { user: SessionUser }) {
  const { t } = useTranslation();
  return (
    <div className="identity" data-testid="dashboard-profile">
      <span className="identity__avatar" aria-hidden="true">
        {user.avatar ? <img src={user.avatar} alt="" /> : <UserOutlined />}
      </span>
      <div className="identity__text">
        <h1 className="identity__greeting">{t('dashboard.welcome', { name: user.name || user.account })}</h1>
        <div className="identity__meta">
          <span>
            <span className="identity__label">{t('dashboard.company')}</span>
            {user.companyName}
          </span>
          {user.roles.length > 0 && (
            <span>
              <span className="identity__label">{t('dashboard.roles')}</span>
              {user.roles.map((r) => r.name).join('、')}
            </span>
          )}
          {user.isAdmin && (
            <span className="identity__admin">
              <CrownOutlined />
              {t('dashboard.admin')}
            </span>
          )}
        </div>
      </div>
    </div>
  );
}
