import { useCallback, useEffect, useState } from 'react';

/**
 * The shared zod schemas, loaded on demand. /login and /register must stay under 120 KB gzip on
 * first load (issue 4 benchmark), and zod alone is ~26 KB, so these two screens fetch the
 * schemas when the user first focuses the form; submit waits for them if needed.
 */
export type Shared = typeof import('@parley/shared');

let loading: Promise<Shared> | null = null;
let loaded: Shared | null = null;

export function loadShared(): Promise<Shared> {
  loading ??= import('@parley/shared').then((m) => (loaded = m));
  return loading;
}

/** The module once loaded (null before), and a `warm` callback to start loading it. */
export function useLazyShared(): { shared: Shared | null; warm: () => void } {
  const [shared, setShared] = useState<Shared | null>(loaded);
  const warm = useCallback(() => {
    if (!loaded) void loadShared().then(setShared);
  }, []);
  useEffect(() => {
    if (loaded && !shared) setShared(loaded);
  }, [shared]);
  return { shared, warm };
}
