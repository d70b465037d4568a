import { Link } from '@tanstack/react-router';
import { useEffect, useRef, useState } from 'react';

const SOLUTIONS = [
  { href: '#demo-live-chat', label: 'Live Chat', hint: 'Talk with visitors in real time' },
  { href: '#demo-ai', label: 'AI Assistant', hint: 'Answers that learn from your team' },
  { href: '#demo-analytics', label: 'Analytics', hint: 'See what your visitors need' },
];

/** Landing top bar: Solutions menu, Pricing, Resources, About, Sign In, Start Free Trial. */
export function TopBar() {
  const [menuOpen, setMenuOpen] = useState(false);
  const [navOpen, setNavOpen] = useState(false);
  const menuRef = useRef<HTMLDivElement>(null);

  // Following an in-page link closes the small-screen menu.
  useEffect(() => {
    const close = () => setNavOpen(false);
    window.addEventListener('hashchange', close);
    return () => window.removeEventListener('hashchange', close);
  }, []);

  // Close the Solutions menu on outside click or Escape, like any native menu.
  useEffect(() => {
    if (!menuOpen) return;
    const onDown = (e: MouseEvent) => {
      if (!menuRef.current?.contains(e.target as Node)) setMenuOpen(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') setMenuOpen(false);
    };
    document.addEventListener('mousedown', onDown);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('mousedown', onDown);
      document.removeEventListener('keydown', onKey);
    };
  }, [menuOpen]);

  return (
    <header className="lp-top">
      <div className="lp-wrap">
        <Link to="/" className="lp-logo">
          <span className="lp-logo-mark" aria-hidden="true">P</span>
          Parley
        </Link>
        <nav
          className={`lp-nav${navOpen ? ' open' : ''}`}
          aria-label="Main"
          id="lp-main-nav"
        >
          <div className="lp-menu-wrap" ref={menuRef}>
            <button type="button" aria-expanded={menuOpen} aria-controls="lp-solutions" onClick={() => setMenuOpen((o) => !o)}>
              Solutions ▾
            </button>
            {menuOpen && (
              <ul className="lp-menu" id="lp-solutions">
                {SOLUTIONS.map((s) => (
                  <li key={s.label}>
                    <a
                      href={s.href}
                      onClick={() => {
                        setMenuOpen(false);
                        setNavOpen(false);
                      }}
                    >
                      {s.label}
                      <small>{s.hint}</small>
                    </a>
                  </li>
                ))}
              </ul>
            )}
          </div>
          <a href="#pricing">
            Pricing
          </a>
          <a href="#resources">
            Resources
          </a>
          <a href="#about">
            About
          </a>
          <Link to="/login" className="lp-nav-only">
            Sign In
          </Link>
        </nav>
        <div className="lp-actions">
          <Link to="/login" className="lp-btn lp-btn-ghost lp-signin">
            Sign In
          </Link>
          <Link to="/register" className="lp-btn lp-btn-primary">
            Start Free Trial
          </Link>
          <button
            type="button"
            className="lp-btn lp-btn-ghost lp-burger"
            aria-expanded={navOpen}
            aria-controls="lp-main-nav"
            aria-label="Menu"
            onClick={() => setNavOpen((o) => !o)}
          >
            ☰
          </button>
        </div>
      </div>
    </header>
  );
}
