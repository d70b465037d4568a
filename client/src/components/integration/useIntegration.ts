import { useCallback, useEffect, useState } from 'react';
import { ApiError, api, errorText } from '../../lib/api';
import { type Metric, normalize, sampleMetrics } from './metrics';

export const INTEGRATION_NO_TOKEN = 'No authentication token found. Please log in again.';

/** The error text of SPEC.md section 8 "Integration": server error field, else message, else fallback. */
function integrationError(e: unknown): string {
  const fallback = 'Failed to load integration data';
  if (!(e instanceof ApiError) && e instanceof Error && e.message) return e.message;
  return errorText(e, fallback);
}

/** Loads the widget script and the usage metrics of the integration page. */
export function useIntegration() {
  const [script, setScript] = useState('');
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState('');
  const [metrics, setMetrics] = useState<Metric[] | null>(null);

  const load = useCallback(async (signal?: AbortSignal) => {
    setLoading(true);
    setError('');
    try {
      const body = await api.get<{ script?: unknown; error?: unknown }>('/api/vms/integration', { signal, noTokenMessage: INTEGRATION_NO_TOKEN });
      if (typeof body?.error === 'string' && body.error) throw new Error(body.error);
      if (typeof body?.script !== 'string' || !body.script) throw new Error('Invalid response from server');
      setScript(body.script);
    } catch (e) {
      if (signal?.aborted) return;
      setScript('');
      setError(integrationError(e));
    } finally {
      if (!signal?.aborted) setLoading(false);
    }
  }, []);

  useEffect(() => {
    const ctrl = new AbortController();
    void load(ctrl.signal);
    // Metrics failure silently falls back to sample data (SPEC.md section 4).
    api
      .get<{ data?: { data?: unknown } }>('/api/vms/integration-metrics', { signal: ctrl.signal, noTokenMessage: INTEGRATION_NO_TOKEN })
      .then((body) => {
        const rows = body?.data?.data;
        if (!Array.isArray(rows)) throw new Error('Invalid metrics');
        setMetrics(normalize(rows));
      })
      .catch(() => {
        if (!ctrl.signal.aborted) setMetrics(sampleMetrics());
      });
    return () => ctrl.abort();
  }, [load]);

  return { script, loading, error, metrics, reload: () => load() };
}
