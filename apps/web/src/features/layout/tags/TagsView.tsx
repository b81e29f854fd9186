/**
 * Tags of visited pages above the main area: click to return, × to close (the dashboard tag
 * stays), right-click for close others / close all. Closing the open page goes to the last
 * remaining tag. Test hooks: `tags-view`, each tag `tag-<path>`.
 */
import { CloseOutlined } from '@ant-design/icons';
import { Dropdown } from 'antd';
import { useEffect, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useNavigate } from 'react-router';
import { translateTitle } from '@/shared/i18n';
import { DASHBOARD_PATH, findRoute, useRouteTable } from '@/shared/routing';
import { useTags } from './store';

/** The tags bar; records each visited page. */
export function TagsView() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const frameRoutes = useRouteTable((s) => s.frameRoutes);
  const { views, visit, close, closeOthers, closeAll } = useTags();
  const entry = useMemo(() => findRoute(frameRoutes, pathname), [frameRoutes, pathname]);

  useEffect(() => {
    if (entry?.route.component && entry.route.title) {
      visit({ path: pathname, title: entry.route.title, keepAlive: entry.route.keepAlive });
    }
  }, [entry, pathname, visit]);

  const leave = (remaining: string[]) => {
    if (remaining.includes(pathname)) return;
    navigate(remaining[remaining.length - 1] ?? DASHBOARD_PATH);
  };

  const onClose = (path: string) => {
    close(path);
    leave(useTags.getState().views.map((v) => v.path));
  };

  return (
    <nav className="tags-view" data-testid="tags-view">
      {views.map((view) => (
        <Dropdown
          key={view.path}
          trigger={['contextMenu']}
          menu={{
            items: [
              { key: 'close', label: t('tags.close'), disabled: view.affix },
              { key: 'others', label: t('tags.closeOthers') },
              { key: 'all', label: t('tags.closeAll') },
            ],
            onClick: ({ key }) => {
              if (key === 'close') onClose(view.path);
              else if (key === 'others') {
                closeOthers(view.path);
                if (view.path !== pathname) navigate(view.path);
              } else {
                closeAll();
                leave(useTags.getState().views.map((v) => v.path));
              }
            },
          }}
        >
          <Link
            to={view.path}
            className={view.path === pathname ? 'tags-view__tag tags-view__tag--active' : 'tags-view__tag'}
            data-testid={`tag-${view.path}`}
          >
            {translateTitle(view.title)}
            {!view.affix && (
              <CloseOutlined
                className="tags-view__close"
                aria-label={t('tags.close')}
                onClick={(e) => {
                  e.preventDefault();
                  e.stopPropagation();
                  onClose(view.path);
                }}
              />
            )}
          </Link>
        </Dropdown>
      ))}
    </nav>
  );
}
