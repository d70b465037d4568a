import type { AlertPrefsDto } from '@parley/shared';
import { useEffect, useState } from 'react';
import { serverError } from '../../lib/api';
import { useAlerts } from '../../stores/alerts';
import { Banner, Button, Toggle } from '../ui';

/**
 * This user's own alerts while the console tab is hidden (issue 16): desktop notification and
 * sound, saved on the server per user as soon as a toggle changes. The browser's permission is
 * asked only from the "Enable desktop notifications" click, never on load.
 */
export function AlertSettings() {
  const prefs = useAlerts((s) => s.prefs);
  const permission = useAlerts((s) => s.permission);
  const savePrefs = useAlerts((s) => s.savePrefs);
  const requestPermission = useAlerts((s) => s.requestPermission);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    void useAlerts.getState().loadPrefs();
  }, []);

  const change = async (patch: Partial<AlertPrefsDto>) => {
    setBusy(true);
    setError('');
    try {
      await savePrefs(patch);
    } catch (e) {
      setError(serverError(e, 'Failed to save notification settings'));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card" aria-labelledby="alert-settings-title">
      <div className="card-header">
        <div>
          <h2 id="alert-settings-title" className="card-title">Desktop alerts</h2>
          <p className="card-sub">When a visitor writes while this console is in the background</p>
        </div>
      </div>
      <div className="card-body">
        {error && <Banner kind="error" onDismiss={() => setError('')}>{error}</Banner>}
        <Toggle label="Desktop notifications" description="Show a notification for a new chat or message" checked={prefs.desktop} disabled={busy} onChange={(v) => void change({ desktop: v })} />
        <Toggle label="Sound" description="Play a short sound for a new chat or message" checked={prefs.sound} disabled={busy} onChange={(v) => void change({ sound: v })} />
        <div className="alert-permission" role="status">
          {permission === 'granted' && <p className="field-hint">Desktop notifications are allowed in this browser.</p>}
          {permission === 'denied' && <p className="field-hint">This browser blocks notifications from Parley: allow them in the site settings of your browser.</p>}
          {permission === 'unsupported' && <p className="field-hint">This browser cannot show desktop notifications.</p>}
        </div>
        {permission === 'default' && (
          <div className="form-actions">
            <Button variant="secondary" onClick={() => void requestPermission()}>
              Enable desktop notifications
            </Button>
          </div>
        )}
      </div>
    </section>
  );
}
