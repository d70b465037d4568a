import type { SubscriptionDto } from '@parley/shared';
import type { ReactNode } from 'react';
import { Button, Spinner } from '../ui';
import { formatDollars, period, statusTone } from './format';

function Status({ s }: { s: SubscriptionDto }) {
  return <span className={`sub-status ${statusTone(s)}`}>{s.status}</span>;
}

/** Step 3: subscription history, a table on wide screens and cards on small ones. */
export function History({
  items,
  loading,
  error,
  onRetry,
  total = items.length,
  hasMore = false,
  loadingMore = false,
  onLoadMore,
}: {
  items: SubscriptionDto[];
  loading: boolean;
  error: string;
  onRetry: () => void;
  /** Paging (issue 16): how many rows exist, whether more pages remain, and how to get the next. */
  total?: number;
  hasMore?: boolean;
  loadingMore?: boolean;
  onLoadMore?: () => void;
}) {
  let body: ReactNode;
  if (loading) {
    body = (
      <div className="sub-state">
        <Spinner label="Loading subscription history" />
      </div>
    );
  } else if (error) {
    body = (
      <div className="sub-error" role="alert">
        <b>Error loading subscriptions</b>
        <p>{error}</p>
        <Button variant="secondary" onClick={onRetry}>
          Retry
        </Button>
      </div>
    );
  } else if (items.length === 0) {
    body = (
      <div className="sub-empty">
        <b>No subscriptions found</b>
        <p>You don&apos;t have any subscription history yet</p>
        <Button variant="secondary" onClick={() => window.location.reload()}>
          Browse Plans
        </Button>
      </div>
    );
  } else {
    body = (
      <>
        <table className="sub-table">
          <thead>
            <tr>
              <th scope="col">Plan</th>
              <th scope="col">Amount</th>
              <th scope="col">Status</th>
              <th scope="col">Reference</th>
              <th scope="col">Period</th>
            </tr>
          </thead>
          <tbody>
            {items.map((s) => (
              <tr key={s.id}>
                <td>{s.plan_name}</td>
                <td>${formatDollars(s.amount)}</td>
                <td><Status s={s} /></td>
                <td className="sub-ref">{s.payment_reference || 'N/A'}</td>
                <td>{period(s)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <ul className="sub-cards">
          {items.map((s) => (
            <li key={s.id}>
              <div className="sub-card-top">
                <b>{s.plan_name}</b>
                <Status s={s} />
              </div>
              <dl>
                <dt>Amount</dt>
                <dd>${formatDollars(s.amount)}</dd>
                <dt>Reference</dt>
                <dd className="sub-ref">{s.payment_reference || 'N/A'}</dd>
                <dt>Period</dt>
                <dd>{period(s)}</dd>
              </dl>
            </li>
          ))}
        </ul>
        <div className="sub-more">
          <span aria-live="polite">
            Showing {items.length} of {Math.max(total, items.length)}
          </span>
          {hasMore && onLoadMore ? (
            <Button variant="secondary" size="sm" busy={loadingMore} onClick={onLoadMore}>
              Load more
            </Button>
          ) : null}
        </div>
      </>
    );
  }
  return (
    <section className="sub-history" aria-labelledby="sub-history-title">
      <h2 id="sub-history-title">Subscription History</h2>
      {body}
    </section>
  );
}
