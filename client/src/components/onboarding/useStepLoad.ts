import { useEffect, useState } from 'react';
import { useOnboarding } from '../../stores/onboarding';

/**
 * Loads one wizard step's own data when the step opens, and refreshes the preview's look and
 * greetings from the server too, so drafts left behind by 'Back' (which does not save) vanish
 * from the preview as well. Preview failures are ignored: the preview has fallbacks.
 */
export function useStepLoad(load: () => Promise<unknown>, failMessage: string) {
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState('');
  useEffect(() => {
    let alive = true;
    const s = useOnboarding.getState();
    if (load !== s.loadLook) s.loadLook().catch(() => undefined);
    if (load !== s.loadGreetings) s.loadGreetings().catch(() => undefined);
    load()
      .catch((e: unknown) => {
        console.error(e);
        if (alive) setError(failMessage);
      })
      .finally(() => alive && setLoading(false));
    return () => {
      alive = false;
    };
  }, [load, failMessage]);
  return { loading, error, setError };
}
