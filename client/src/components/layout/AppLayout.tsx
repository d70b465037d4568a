import { Link, Outlet, useNavigate, useRouterState } from '@tanstack/react-router';
import { useEffect, useState } from 'react';
import { can, isAdmin, useAuth } from '../../stores/auth';
import { initial } from '../../lib/format';
import { useSocketState } from '../../lib/socket';
import { titleWithUnread, totalUnread } from '../../stores/alertLogic';
import { useAlerts } from '../../stores/alerts';
import { Icon } from '../icons';
import { useOpenConversation } from './AlertsBell';
import './alerts.css';

/** Onboarding steps are full-page wizards: same auth rules, no sidebar. */
const BARE_PATHS = new Set(['/widget-settings', '/greetings', '/account-info']);

const LINKS: { to: string; label: string; icon: () => React.ReactElement; adminOnly?: boolean; permission?: string }[] = [
  { to: '/dashboard', label: 'Dashboard', icon: Icon.dashboard },
  { to: '/conversations', label: 'Conversations', icon: Icon.chat },
  { to: '/visitors', label: 'Visitors', icon: Icon.users },
  { to: '/chatbots', label: 'AI Chatbot', icon: Icon.bot },
  { to: '/integrations', label: 'Integrations', icon: Icon.plug },
  { to: '/team', label: 'Team', icon: Icon.team, adminOnly: true },
  { to: '/subscription', label: 'Subscription', icon: Icon.card },
  { to: '/api-access', label: 'API & Webhooks', icon: Icon.plug, permission: 'integrations.manage' },
  { to: '/documentation', label: 'Documentation', icon: Icon.book },
  { to: '/settings', label: 'Settings', icon: Icon.settings },
];

export function FullPageLoading({ text }: { text: string }) {
  return (
    <div className="full-loading" role="status" aria-live="polite">
      <span className="spinner spinner-lg" aria-hidden="true" />
      <p>{text}</p>
    </div>
  );
}

/**
 * Signed-in shell (SPEC.md section 2): waits for the auth check, sends a visitor without a
 * user to /login, and draws the sidebar (toggled with an overlay on small screens).
 */
export default function AppLayout() {
  const user = useAuth((s) => s.user);
  const loading = useAuth((s) => s.loading);
  const logout = useAuth((s) => s.logout);
  const navigate = useNavigate();
  const pathname = useRouterState({ select: (s) => s.location.pathname });
  const [open, setOpen] = useState(false);

  useEffect(() => {
    if (!loading && !user) void navigate({ to: '/login', replace: true });
  }, [loading, user, navigate]);

  // A navigation closes the small-screen sidebar.
  // biome-ignore lint/correctness/useExhaustiveDependencies: pathname is the trigger
  useEffect(() => setOpen(false), [pathname]);

  // Alerts for the whole signed-in session: one socket, unread counts, bell, notifications.
  const userId = user?.id;
  useEffect(() => (userId === undefined ? undefined : useAlerts.getState().start(userId)), [userId]);
  const openConversation = useOpenConversation();
  useEffect(() => {
    useAlerts.getState().setOpener(openConversation);
    return () => useAlerts.getState().setOpener(null);
  }, [openConversation]);
  const unread = useAlerts((s) => totalUnread(s.unread));
  useEffect(() => {
    document.title = titleWithUnread(document.title, unread);
  }, [unread]);
  useEffect(() => () => void (document.title = titleWithUnread(document.title, 0)), []);
  const socketStatus = useSocketState((s) => s.status);

  if (loading || !user) {
    return <FullPageLoading text={pathname === '/dashboard' ? 'Loading your dashboard...' : 'Loading...'} />;
  }
  if (BARE_PATHS.has(pathname)) return <Outlet />;

  const onLogout = async () => {
    await logout();
    void navigate({ to: '/login' });
  };
  const links = LINKS.filter((l) => (!l.adminOnly || isAdmin(user)) && (!l.permission || can(user, l.permission)));

  return (
    <div className={`app-shell${open ? ' sidebar-open' : ''}`}>
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <header className="mobile-bar">
        <button type="button" className="icon-btn" aria-label={open ? 'Close menu' : 'Open menu'} aria-expanded={open} aria-controls="app-sidebar" onClick={() => setOpen((v) => !v)}>
          {open ? <Icon.close /> : <Icon.menu />}
        </button>
        <span className="brand brand-sm">
          <span className="brand-mark" aria-hidden="true">P</span> Parley
        </span>
      </header>
      {open && <div className="sidebar-overlay" aria-hidden="true" onClick={() => setOpen(false)} />}
      <aside id="app-sidebar" className="sidebar" aria-label="Sidebar">
        <div className="sidebar-brand">
          <span className="brand">
            <span className="brand-mark" aria-hidden="true">P</span> Parley
          </span>
          <button type="button" className="icon-btn sidebar-close" aria-label="Close menu" onClick={() => setOpen(false)}>
            <Icon.close />
          </button>
        </div>
        <nav className="sidebar-nav" aria-label="Main">
          {links.map((l) => (
            <Link key={l.to} to={l.to} className="nav-link" activeProps={{ className: 'nav-link active', 'aria-current': 'page' }}>
              <l.icon />
              <span>{l.label}</span>
              {l.to === '/conversations' && unread > 0 && (
                <span className="nav-badge">
                  {unread > 99 ? '99+' : unread}
                  <span className="sr-only"> unread</span>
                </span>
              )}
            </Link>
          ))}
        </nav>
        <div className="sidebar-footer">
          {(socketStatus === 'live' || socketStatus === 'connecting') && (
            <div className={`conn-state conn-${socketStatus}`} role="status">
              <span className="conn-dot" aria-hidden="true" />
              {socketStatus === 'live' ? 'Live' : 'Connecting...'}
            </div>
          )}
          <div className="user-chip">
            <span className="avatar avatar-sm avatar-brand" aria-hidden="true">
              {initial(user.name, 'U')}
            </span>
            <div className="user-chip-text">
              <div className="user-chip-name">{user.name}</div>
              <div className="user-chip-email">{user.email}</div>
            </div>
          </div>
          <button type="button" className="btn btn-ghost btn-sm btn-block logout-btn" onClick={onLogout}>
            <Icon.logout /> Logout
          </button>
        </div>
      </aside>
      <main id="main" className="app-main" tabIndex={-1}>
        {socketStatus === 'reconnecting' && (
          <div className="conn-banner" role="alert">
            <span className="spinner spinner-sm" aria-hidden="true" /> Reconnecting...
          </div>
        )}
        <Outlet />
      </main>
    </div>
  );
}
