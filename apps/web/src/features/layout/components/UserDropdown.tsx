/**
 * User dropdown (spec §1, §2, §4): home ('/'), change password, e-mail subscription (opened only
 * after the current settings load), company invitations (only while there are any; a badge on
 * the trigger counts them; docs/api.md "Adding an existing account"), logout.
 * Test hooks: trigger `user-dropdown`; items `user-menu-home`, `user-menu-password`,
 * `user-menu-email`, `user-menu-invitations`, `user-menu-logout`.
 */
import {
  DownOutlined,
  HomeOutlined,
  InboxOutlined,
  LockOutlined,
  LogoutOutlined,
  MailOutlined,
  UserOutlined,
} from '@ant-design/icons';
import type { EmailSettings } from '@ess/contract';
import { Avatar, Badge, Dropdown } from 'antd';
import { Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { ChangePasswordDialog, EmailDialog, getEmail, InvitationsDialog } from '@/features/account';
import { logout, useSession } from '@/features/auth';
import { HOME_PATH } from '@/shared/routing';

/** Avatar + name trigger with the account menu and its dialogs. */
export function UserDropdown() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const user = useSession((s) => s.user);
  const setInvitations = useSession((s) => s.setInvitations);
  const invitations = user?.invitations ?? [];
  const [invitationsOpen, setInvitationsOpen] = useState(false);
  const [passwordOpen, setPasswordOpen] = useState(false);
  /** Mounted once first opened, so the dialog chunk loads on demand and closes animated. */
  const [passwordMounted, setPasswordMounted] = useState(false);
  const [email, setEmail] = useState<EmailSettings | null>(null);
  const [loadingEmail, setLoadingEmail] = useState(false);

  const openEmail = async () => {
    if (loadingEmail) return;
    setLoadingEmail(true);
    try {
      setEmail(await getEmail());
    } catch {
      // not opened: the server msg is shown (spec §4)
    } finally {
      setLoadingEmail(false);
    }
  };

  const items = [
    { key: 'home', icon: <HomeOutlined />, label: t('navbar.home'), 'data-testid': 'user-menu-home' },
    {
      key: 'password',
      icon: <LockOutlined />,
      label: t('navbar.changePassword'),
      'data-testid': 'user-menu-password',
    },
    { key: 'email', icon: <MailOutlined />, label: t('navbar.email'), 'data-testid': 'user-menu-email' },
    ...(invitations.length > 0
      ? [
          {
            key: 'invitations',
            icon: <InboxOutlined />,
            label: t('navbar.invitations', { count: invitations.length }),
            'data-testid': 'user-menu-invitations',
          },
        ]
      : []),
    { type: 'divider' as const },
    { key: 'logout', icon: <LogoutOutlined />, label: t('navbar.logout'), 'data-testid': 'user-menu-logout' },
  ];

  const onClick = ({ key }: { key: string }) => {
    if (key === 'home') navigate(HOME_PATH);
    else if (key === 'password') {
      setPasswordMounted(true);
      setPasswordOpen(true);
    } else if (key === 'email') void openEmail();
    else if (key === 'invitations') setInvitationsOpen(true);
    else if (key === 'logout') void logout();
  };

  return (
    <>
      <Dropdown trigger={['click']} menu={{ items, onClick }} placement="bottomRight">
        <button type="button" className="navbar__user" data-testid="user-dropdown">
          <Badge count={invitations.length} size="small" offset={[-2, 2]}>
            <Avatar size={28} src={user?.avatar || undefined} icon={<UserOutlined />} />
          </Badge>
          <span className="navbar__user-name">{user?.name || user?.account}</span>
          <DownOutlined className="navbar__user-caret" />
        </button>
      </Dropdown>
      <Suspense fallback={null}>
        {passwordMounted && (
          <ChangePasswordDialog open={passwordOpen} onClose={() => setPasswordOpen(false)} />
        )}
        {email && <EmailDialog settings={email} onClose={() => setEmail(null)} />}
        {invitationsOpen && (
          <InvitationsDialog
            open={invitationsOpen}
            invitations={invitations}
            onAnswered={setInvitations}
            onClose={() => setInvitationsOpen(false)}
          />
        )}
      </Suspense>
    </>
  );
}
