import type { ReactNode } from 'react';
import { Icon } from '../icons';
import { AlertsBell } from './AlertsBell';

/** Title row of a signed-in screen; `actions` sit on the right. */
export function PageHeader({ title, subtitle, actions }: { title: ReactNode; subtitle?: ReactNode; actions?: ReactNode }) {
  return (
    <header className="page-header">
      <div className="page-header-text">
        <h1 className="page-title">{title}</h1>
        {subtitle && <p className="page-subtitle">{subtitle}</p>}
      </div>
      {actions && <div className="page-actions">{actions}</div>}
    </header>
  );
}

/**
 * The notification bell of SPEC.md. With `onClick` (the dashboard) it does what the screen
 * says and `dot` shows its red dot; without, it opens the latest alert events (new chats,
 * messages, conversations assigned to me) with "Mark all read" (issue 16).
 */
export function BellButton({ dot = false, onClick }: { dot?: boolean; onClick?: () => void }) {
  if (!onClick) return <AlertsBell />;
  return (
    <button type="button" className="icon-btn bell-btn" aria-label={dot ? 'Notifications (new activity)' : 'Notifications'} onClick={onClick}>
      <Icon.bell />
      {dot && <span className="bell-dot" aria-hidden="true" />}
    </button>
  );
}

/** A search input with an icon; `onChange` optional (decorative when omitted). */
export function SearchBox({ value, onChange, placeholder, label }: { value?: string; onChange?: (v: string) => void; placeholder: string; label: string }) {
  return (
    <div className="search-box">
      <Icon.search />
      <input type="search" className="search-input" placeholder={placeholder} aria-label={label} value={value} onChange={onChange ? (e) => onChange(e.target.value) : undefined} />
    </div>
  );
}
