import { Link } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import { Icon } from './icons';

/** Split layout of /login and /register: brand panel on the left, form on the right. */
export function AuthFrame({ children, headline, text }: { children: ReactNode; headline: string; text: string }) {
  return (
    <div className="auth-page">
      <aside className="auth-aside" aria-label="About Parley">
        <Link to="/" className="brand">
          <span className="brand-mark" aria-hidden="true">P</span> Parley
        </Link>
        <div>
          <h2>{headline}</h2>
          <p>{text}</p>
          <ul className="auth-points">
            <li><span aria-hidden="true">✓</span> Real-time chat with every visitor</li>
            <li><span aria-hidden="true">✓</span> AI assistant that learns your business</li>
            <li><span aria-hidden="true">✓</span> 14-day free trial, no credit card</li>
          </ul>
        </div>
        <p className="auth-quote">“We answer customers in seconds now. Setup took five minutes.”</p>
      </aside>
      <main className="auth-main">
        <div className="auth-card">
          <Link to="/" className="brand auth-mobile-brand">
            <span className="brand-mark" aria-hidden="true">P</span> Parley
          </Link>
          {children}
        </div>
      </main>
    </div>
  );
}

/** Show/hide button placed inside a password input. */
export function PasswordToggle({ shown, onToggle }: { shown: boolean; onToggle: () => void }) {
  return (
    <button type="button" className="input-trailing" aria-label={shown ? 'Hide password' : 'Show password'} aria-pressed={shown} onClick={onToggle}>
      {shown ? <Icon.eyeOff /> : <Icon.eye />}
    </button>
  );
}
