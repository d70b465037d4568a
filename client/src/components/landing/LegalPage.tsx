import { Link } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import './legal.css';

/** Frame shared by /terms and /privacy: a readable column with links back. */
export function LegalPage({ title, updated, children }: { title: string; updated: string; children: ReactNode }) {
  return (
    <div className="legal">
      <header className="legal-top">
        <div>
          <Link to="/">Parley</Link>
          <Link to="/register">Back to registration</Link>
        </div>
      </header>
      <main>
        <h1>{title}</h1>
        <p className="legal-date">Last updated: {updated}</p>
        {children}
      </main>
    </div>
  );
}
