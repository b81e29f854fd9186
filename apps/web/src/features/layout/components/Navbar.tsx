/**
 * Top bar (spec §1, §2): hamburger, breadcrumb, cockpit button (opens /newscreen in a new tab),
 * language switch, user dropdown.
 * Test hooks: `hamburger`, `breadcrumb`, `cockpit-button`, `language-switch`, `user-dropdown`.
 */
import { FundProjectionScreenOutlined, MenuFoldOutlined, MenuUnfoldOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { LanguageSwitch } from '@/features/auth';
import { COCKPIT_PATH } from '@/shared/routing';
import { useFrame } from '../store';
import { Breadcrumbs } from './Breadcrumbs';
import { UserDropdown } from './UserDropdown';

/** The top bar of the frame. */
export function Navbar() {
  const { t } = useTranslation();
  const opened = useFrame((s) => s.sidebarOpened);
  const toggle = useFrame((s) => s.toggleSidebar);
  return (
    <div className="navbar">
      <button
        type="button"
        className="icon-button navbar__hamburger"
        onClick={toggle}
        aria-expanded={opened}
        aria-label={t('navbar.hamburger')}
        title={t('navbar.hamburger')}
        data-testid="hamburger"
      >
        {opened ? <MenuFoldOutlined /> : <MenuUnfoldOutlined />}
      </button>
      <Breadcrumbs />
      <div className="navbar__right">
        <a
          className="icon-button"
          href={COCKPIT_PATH}
          target="_blank"
          rel="noopener"
          aria-label={t('navbar.cockpit')}
          title={t('navbar.cockpit')}
          data-testid="cockpit-button"
        >
          <FundProjectionScreenOutlined />
        </a>
        <LanguageSwitch />
        <UserDropdown />
      </div>
    </div>
  );
}
