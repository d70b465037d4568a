import type { ErrorComponentProps } from '@tanstack/react-router';

/** Shown when a screen's chunk fails or takes longer than 120 s to load (SPEC.md section 9). */
export function RouteError({ error }: ErrorComponentProps) {
  const timedOut = error instanceof Error && error.message === 'Loading timed out';
  return (
    <div className="full-loading" role="alert">
      <h1 style={{ fontSize: 20 }}>{timedOut ? 'This page is taking too long to load' : 'Something went wrong loading this page'}</h1>
      <p className="muted">Check your connection and try again.</p>
      <button type="button" className="btn btn-primary btn-md" onClick={() => window.location.reload()}>
        Retry
      </button>
    </div>
  );
}
