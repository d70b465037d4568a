import type { SubscriptionStatusDto } from '@parley/shared';
import { useState } from 'react';
import { Button } from '../ui';
import { currentPlanText, longDate } from './format';

interface Props {
  status: SubscriptionStatusDto | null;
  error: string;
  changing: boolean;
  onCancel: () => Promise<boolean>;
  onKeep: () => Promise<boolean>;
}

/** The owner's current plan: what is in force, until when, what happens next; cancel or keep it. */
export function CurrentPlan({ status, error, changing, onCancel, onKeep }: Props) {
  const [confirming, setConfirming] = useState(false);
  if (!status) {
    return error ? (
      <section className="sub-current" aria-label="Current plan">
        <p>{error}</p>
      </section>
    ) : null;
  }
  const { title, lines } = currentPlanText(status);
  const keeps = status.paid_plan ?? status.plan;
  return (
    <section className="sub-current" aria-labelledby="sub-current-title">
      <h2 id="sub-current-title">{title}</h2>
      {lines.map((line) => (
        <p key={line}>{line}</p>
      ))}
      <div className="sub-current-actions">
        {status.scheduled_change ? (
          <Button variant="secondary" busy={changing} onClick={() => void onKeep()}>
            Keep {keeps}
          </Button>
        ) : status.period_ends_at && !confirming ? (
          <Button variant="secondary" onClick={() => setConfirming(true)}>
            Cancel subscription
          </Button>
        ) : null}
      </div>
      {confirming && !status.scheduled_change && status.period_ends_at && (
        <div className="sub-confirm">
          <p>
            Cancel at the end of the period? {keeps} stays until {longDate(status.period_ends_at)}, then the Starter plan applies. Nothing is refunded or
            charged.
          </p>
          <div className="sub-current-actions">
            <Button
              variant="danger"
              busy={changing}
              onClick={async () => {
                if (await onCancel()) setConfirming(false);
              }}
            >
              Yes, cancel
            </Button>
            <Button variant="ghost" disabled={changing} onClick={() => setConfirming(false)}>
              No, keep it
            </Button>
          </div>
        </div>
      )}
    </section>
  );
}
