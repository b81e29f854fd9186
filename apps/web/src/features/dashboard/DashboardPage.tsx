/**
 * /dashboard (spec §2): the signed-in operator's first page — who they are (name, account,
 * company, roles, alarm e-mail), which companies they can enter, the pages their menu lets
 * them open (as links), and their permission strings (live from `user/getPermission`).
 * No figures are invented here; the live fleet overview comes with the device data.
 * Test hooks: `dashboard`, `dashboard-profile`, `dashboard-pages`, `dashboard-page-<path>`,
 * `dashboard-permissions`.
 */
import { CrownOutlined, ExportOutlined, UserOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Avatar, Card, Descriptions, Empty, Tag } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { fetchPermissions, useSession } from '@/features/auth';
import { translateTitle } from '@/shared/i18n';
import { menuIcon } from '@/shared/icons';
import { DASHBOARD_PATH, pagesOf, type RouteEntry, useRouteTable } from '@/shared/routing';
import './dashboard.css';

function PageCard({ entry }: { entry: RouteEntry }) {
  const { t } = useTranslation();
  const { route, parents } = entry;
  const section = parents
    .filter((p) => p.title)
    .map((p) => translateTitle(p.title))
    .join(' / ');
  const icon = menuIcon(route.icon ?? parents[parents.length - 1]?.icon ?? 'AppstoreOutlined');
  const body = (
    <>
      <span className="dashboard-page__icon">{icon}</span>
      <span className="dashboard-page__text">
        <span className="dashboard-page__title">{translateTitle(route.title)}</span>
        <span className="dashboard-page__meta">{section || route.path}</span>
      </span>
      {route.external && (
        <ExportOutlined className="dashboard-page__ext" aria-label={t('dashboard.external')} />
      )}
    </>
  );
  return route.external ? (
    <a
      className="dashboard-page"
      href={route.path}
      target="_blank"
      rel="noopener noreferrer"
      data-testid={`dashboard-page-${route.path}`}
    >
      {body}
    </a>
  ) : (
    <Link className="dashboard-page" to={route.path} data-testid={`dashboard-page-${route.path}`}>
      {body}
    </Link>
  );
}

/** The /dashboard view. */
export default function DashboardPage() {
  const { t } = useTranslation();
  const user = useSession((s) => s.user);
  const frameRoutes = useRouteTable((s) => s.frameRoutes);
  const pages = useMemo(
    () => pagesOf(frameRoutes).filter((e) => e.route.path !== DASHBOARD_PATH),
    [frameRoutes],
  );
  const permissions = useQuery({
    queryKey: ['permissions', user?.userId, user?.companyId],
    queryFn: fetchPermissions,
    enabled: user !== null,
    initialData: user?.permissions,
  });

  if (!user) return null;
  const perms = [...(permissions.data ?? [])].sort();
  const otherCompanies = user.companyList.filter((c) => c.id !== user.companyId);

  return (
    <div className="dashboard" data-testid="dashboard">
      <Card className="dashboard__hello" variant="borderless">
        <div className="dashboard__hello-row">
          <Avatar size={56} src={user.avatar || undefined} icon={<UserOutlined />} />
          <div>
            <h1 className="dashboard__greeting">
              {t('dashboard.welcome', { name: user.name || user.account })}
            </h1>
            <div className="dashboard__sub">
              <span>{user.companyName}</span>
              {user.isAdmin && (
                <Tag color="gold" icon={<CrownOutlined />}>
                  {t('dashboard.admin')}
                </Tag>
              )}
            </div>
          </div>
        </div>
      </Card>

      <div className="dashboard__grid">
        <Card title={t('dashboard.profile')} variant="borderless" data-testid="dashboard-profile">
          <Descriptions
            column={1}
            size="small"
            items={[
              { key: 'name', label: t('dashboard.name'), children: user.name || '—' },
              { key: 'account', label: t('dashboard.account'), children: user.account },
              { key: 'company', label: t('dashboard.company'), children: user.companyName },
              {
                key: 'roles',
                label: t('dashboard.roles'),
                children:
                  user.roles.length > 0 ? (
                    <span className="dashboard__tags">
                      {user.roles.map((r) => (
                        <Tag key={r.id} color="blue">
                          {r.name}
                        </Tag>
                      ))}
                    </span>
                  ) : (
                    t('dashboard.noRoles')
                  ),
              },
              { key: 'email', label: t('dashboard.email'), children: user.email || t('dashboard.noEmail') },
              ...(otherCompanies.length > 0
                ? [
                    {
                      key: 'companies',
                      label: t('dashboard.companies'),
                      children: (
                        <span className="dashboard__tags">
                          {user.companyList.map((c) => (
                            <Tag key={c.id} color={c.id === user.companyId ? 'processing' : 'default'}>
                              {c.name}
                            </Tag>
                          ))}
                        </span>
                      ),
                    },
                  ]
                : []),
            ]}
          />
        </Card>

        <Card title={t('dashboard.pages')} variant="borderless" data-testid="dashboard-pages">
          {pages.length > 0 ? (
            <div className="dashboard__pages">
              {pages.map((entry) => (
                <PageCard key={entry.route.path} entry={entry} />
              ))}
            </div>
          ) : (
            <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('dashboard.noPages')} />
          )}
        </Card>
      </div>

      <Card title={t('dashboard.permissions')} variant="borderless" data-testid="dashboard-permissions">
        {perms.length > 0 ? (
          <span className="dashboard__tags">
            {perms.map((p) => (
              <Tag key={p} className="dashboard__perm">
                {p}
              </Tag>
            ))}
          </span>
        ) : (
          <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('dashboard.noPermissions')} />
        )}
      </Card>
    </div>
  );
}
