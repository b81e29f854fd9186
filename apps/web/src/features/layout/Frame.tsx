/**
 * The page frame (spec §1, §2, §4): 210 px sidebar from the menu tree, top bar, tags, and the
 * main area (keep-alive outlet with path-keyed transitions). Below 992 px the sidebar becomes a
 * drawer over the page with a backdrop that closes it. Also provides antd's context (locale,
 * theme, message and confirm hosts) and TanStack Query to the pages inside it. Hosts the forced
 * change-password dialog (a password set by an administrator must be changed first).
 * Test hooks: `frame`, `sidebar`, `sidebar-backdrop`, `main`.
 */
import { QueryClientProvider } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { queryClient } from '@/shared/api/query';
import { useDayjsLocale } from '@/shared/i18n/dayjs';
import { HOME_PATH } from '@/shared/routing';
import { AntdProvider } from '@/shared/ui/AntdProvider';
import { ForcedPasswordChange } from './components/ForcedPasswordChange';
import { Navbar } from './components/Navbar';
import { Sidebar } from './components/Sidebar';
import { KeepAliveOutlet } from './keep-alive/KeepAliveOutlet';
import { useFrame } from './store';
import { TagsView } from './tags/TagsView';
import { useResponsive } from './useResponsive';
import './frame.css';

function Logo({ collapsed }: { collapsed: boolean }) {
  const { t } = useTranslation();
  return (
    <Link to={HOME_PATH} className="sidebar__logo" title={t('app.name')}>
      <svg viewBox="0 0 32 32" width="26" height="26" aria-hidden="true">
        <rect x="6" y="4" width="20" height="26" rx="3" fill="#1677ff" />
        <rect x="12" y="1" width="8" height="4" rx="1" fill="#1677ff" />
        <path d="M17 9l-6 10h5l-1 7 6-10h-5z" fill="#fff" />
      </svg>
      {!collapsed && <span className="sidebar__title">{t('app.name')}</span>}
    </Link>
  );
}

/** The frame layout route element; renders the matched page in its main area. */
export default function Frame() {
  useResponsive();
  useDayjsLocale();
  const opened = useFrame((s) => s.sidebarOpened);
  const withoutAnimation = useFrame((s) => s.withoutAnimation);
  const device = useFrame((s) => s.device);
  const closeSidebar = useFrame((s) => s.closeSidebar);
  const mobile = device === 'mobile';

  const classes = [
    'frame',
    opened ? 'frame--open' : 'frame--closed',
    mobile ? 'frame--mobile' : 'frame--desktop',
    withoutAnimation ? 'frame--no-animation' : '',
  ]
    .filter(Boolean)
    .join(' ');

  return (
    <AntdProvider>
      <QueryClientProvider client={queryClient}>
        <div className={classes} data-testid="frame">
          {mobile && opened && (
            // biome-ignore lint/a11y/noStaticElementInteractions: a click-away backdrop; Esc-free by design (spec §2)
            // biome-ignore lint/a11y/useKeyWithClickEvents: the hamburger is the keyboard path
            <div
              className="frame__backdrop"
              onClick={() => closeSidebar(false)}
              data-testid="sidebar-backdrop"
            />
          )}
          <aside className="frame__sidebar" data-testid="sidebar" inert={mobile && !opened}>
            <Logo collapsed={!opened && !mobile} />
            <div className="frame__sidebar-scroll">
              <Sidebar collapsed={!opened && !mobile} />
            </div>
          </aside>
          <div className="frame__main">
            <header className="frame__header">
              <Navbar />
              <TagsView />
            </header>
            <main className="frame__content" data-testid="main">
              <KeepAliveOutlet />
            </main>
          </div>
        </div>
        <ForcedPasswordChange />
      </QueryClientProvider>
    </AntdProvider>
  );
}
