import type { StorageUsageDto } from '@parley/shared';
import { useEffect, useState } from 'react';
import { api, errorText } from '../../lib/api';
import { useCan } from '../../stores/auth';
import { formatBytes } from './format';
import './storage.css';

/**
 * The account's stored files against its plan's storage quota (GET /api/vms/storage), for the
 * owner on the Subscription screen; team members see nothing (the call is owner only).
 */
export function StorageUsage() {
  const isOwner = useCan('billing.manage');
  const [usage, setUsage] = useState<StorageUsageDto | null>(null);
  const [error, setError] = useState('');

  useEffect(() => {
    if (!isOwner) return;
    let live = true;
    api
      .getData<StorageUsageDto>('/api/vms/storage')
      .then((u) => live && setUsage(u))
      .catch((e: unknown) => live && setError(errorText(e, 'Storage usage could not be loaded')));
    return () => {
      live = false;
    };
  }, [isOwner]);

  if (!isOwner || (!usage && !error)) return null;
  if (!usage) {
    return (
      <section className="storage-usage" aria-label="Storage">
        <p className="storage-error">{error}</p>
      </section>
    );
  }
  const { used_bytes: used, quota_bytes: quota } = usage;
  const percent = quota ? Math.min(100, Math.round((used / quota) * 100)) : 0;
  return (
    <section className="storage-usage" aria-labelledby="storage-usage-title">
      <h2 id="storage-usage-title">Storage</h2>
      <p>
        {formatBytes(used)} used{quota !== null ? ` of ${formatBytes(quota)}` : ''} · {usage.files} {usage.files === 1 ? 'file' : 'files'}
      </p>
      {quota !== null && (
        <div
          className={`storage-bar${usage.quota_reached ? ' full' : ''}`}
          role="progressbar"
          aria-label="Storage used"
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={percent}
        >
          <span style={{ width: `${percent}%` }} />
        </div>
      )}
      {usage.quota_reached && <p className="storage-error">Your plan&apos;s storage is full: new images are refused until you upgrade.</p>}
    </section>
  );
}
