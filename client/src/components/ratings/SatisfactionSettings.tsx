import { useEffect, useState } from 'react';
import { serverError } from '../../lib/api';
import { useCan } from '../../stores/auth';
import { useRatings } from '../../stores/ratings';
import { Banner, Toggle } from '../ui';

/**
 * Settings card (issue 13): whether the widget asks visitors "How was this conversation?" after
 * a resolve or a chat an agent answered (owner/Admin switch, read only for Agents), and the last
 * 30 days' satisfaction, for the account and per agent.
 */
export function SatisfactionSettings() {
  const canWrite = useCan('settings.write');
  const summary = useRatings((s) => s.summary);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    useRatings
      .getState()
      .loadSummary('30d')
      .catch((e) => setError(serverError(e, 'Failed to load satisfaction ratings')));
  }, []);

  const change = async (enabled: boolean) => {
    setBusy(true);
    setError('');
    try {
      await useRatings.getState().setEnabled(enabled);
    } catch (e) {
      setError(serverError(e, 'Failed to save the satisfaction survey setting'));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card" aria-labelledby="satisfaction-title">
      <div className="card-header">
        <div>
          <h2 id="satisfaction-title" className="card-title">Satisfaction survey</h2>
          <p className="card-sub">Visitors rate a conversation from 1 to 5 once it is resolved or answered</p>
        </div>
      </div>
      <div className="card-body">
        {error && <Banner kind="error" onDismiss={() => setError('')}>{error}</Banner>}
        <Toggle
          label="Ask visitors to rate their conversations"
          description={canWrite ? 'Once per conversation, with an optional comment' : 'Only the owner or an Admin can change this'}
          checked={summary?.enabled ?? true}
          disabled={busy || !canWrite || !summary}
          onChange={(v) => void change(v)}
        />
        {summary && (
          <div className="rating-summary" aria-live="polite">
            <p>
              Last 30 days:{' '}
              <strong>{summary.average === null ? 'no ratings yet' : `${summary.average}/5 from ${summary.count} ${summary.count === 1 ? 'rating' : 'ratings'}`}</strong>
            </p>
            {summary.agents.length > 0 && (
              <table className="inbox-table" aria-label="Satisfaction per agent, last 30 days">
                <thead>
                  <tr>
                    <th scope="col">Agent</th>
                    <th scope="col">Average</th>
                    <th scope="col">Ratings</th>
                  </tr>
                </thead>
                <tbody>
                  {summary.agents.map((a) => (
                    <tr key={a.user_id}>
                      <td>{a.name}</td>
                      <td>{a.average}/5</td>
                      <td>{a.count}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </div>
        )}
      </div>
    </section>
  );
}
