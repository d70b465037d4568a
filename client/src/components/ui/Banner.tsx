import { useEffect, type ReactNode } from 'react';
import { BANNER_DISMISS_MS } from '@parley/shared';

/**
 * A success / error line above a form. With `onDismiss` it disappears after 5 s
 * (SPEC.md section 4 "Settings"); the timer restarts when the message changes.
 */
export function Banner({ kind, children, onDismiss, autoDismiss = true }: { kind: 'success' | 'error' | 'info'; children: ReactNode; onDismiss?: () => void; autoDismiss?: boolean }) {
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new message restarts the 5 s timer
  useEffect(() => {
    if (!onDismiss || !autoDismiss) return;
    const t = setTimeout(onDismiss, BANNER_DISMISS_MS);
    return () => clearTimeout(t);
  }, [children, onDismiss, autoDismiss]);
  if (children === null || children === undefined || children === '') return null;
  return (
    <div className={`banner banner-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      <span className="banner-text">{children}</span>
      {onDismiss && (
        <button type="button" className="banner-close" aria-label="Dismiss message" onClick={onDismiss}>
          ×
        </button>
      )}
    </div>
  );
}
