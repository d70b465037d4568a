import { Link } from '@tanstack/react-router';
import { useEffect, useState } from 'react';
import { useAiAdmin } from '../../stores/chatbotAdmin';
import { Banner, Button, Toggle } from '../ui';

const pct = (n: number) => `${Math.round(n * 100)}%`;

/**
 * Auto-answer to visitors and its threshold, with a plain explanation and the real figures.
 * Owners and Admins change it; everyone else sees it read only.
 */
export function AutoAnswerPanel() {
  const { settings, figures, canManage, saveSettings } = useAiAdmin();
  const [enabled, setEnabled] = useState(false);
  const [threshold, setThreshold] = useState(0.8);
  const [autoApprove, setAutoApprove] = useState(false);
  const [busy, setBusy] = useState(false);
  const [banner, setBanner] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);

  useEffect(() => {
    if (!settings) return;
    setEnabled(settings.auto_answer_enabled);
    setThreshold(settings.threshold);
    setAutoApprove(settings.auto_approve);
  }, [settings]);

  if (!settings) return null;
  const dirty = enabled !== settings.auto_answer_enabled || threshold !== settings.threshold || autoApprove !== settings.auto_approve;

  const save = async () => {
    setBusy(true);
    const error = await saveSettings({ auto_answer_enabled: enabled, threshold, auto_approve: autoApprove });
    setBusy(false);
    setBanner(error ? { kind: 'error', text: error } : { kind: 'success', text: 'Auto-answer settings saved' });
  };

  return (
    <section className="cb-panel" id="cb-auto" aria-labelledby="cb-auto-title">
      <h2 id="cb-auto-title">Auto-answer to visitors</h2>
      <p className="cb-muted">
        When nobody on your team is online, the assistant can answer visitors in the chat widget. It only uses knowledge you approved, and only
        answers when it is at least as sure as the threshold below; otherwise it stays quiet and your team answers later. Visitors can always
        ask for a human: outside your <Link to="/settings">business hours</Link> they are told when your team is back, otherwise how soon it usually replies.
      </p>
      {!canManage && <p className="cb-readonly">Only the owner or an Admin can change these settings.</p>}
      {banner && (
        <Banner kind={banner.kind} onDismiss={() => setBanner(null)}>
          {banner.text}
        </Banner>
      )}
      <div className="cb-settings">
        <Toggle label="Answer visitors automatically" description="Only when no team member is online" checked={enabled} onChange={setEnabled} disabled={!canManage || busy} />
        <div className="cb-threshold">
          <label htmlFor="cb-threshold">
            Confidence needed to answer: <b>{pct(threshold)}</b>
          </label>
          <input
            id="cb-threshold"
            type="range"
            min={0.5}
            max={0.99}
            step={0.01}
            value={threshold}
            disabled={!canManage || busy}
            onChange={(e) => setThreshold(Number(e.target.value))}
            aria-valuetext={pct(threshold)}
          />
          <small className="cb-muted">Higher: fewer answers, more often right. 80% is a good start.</small>
        </div>
        <Toggle
          label="Approve learned knowledge automatically"
          description="Not recommended: what the assistant learns from your team's replies then reaches visitors without your review."
          checked={autoApprove}
          onChange={setAutoApprove}
          disabled={!canManage || busy}
        />
        {canManage && (
          <div>
            <Button onClick={() => void save()} busy={busy} disabled={!dirty}>
              Save auto-answer settings
            </Button>
          </div>
        )}
      </div>
      {figures && (
        <dl className="cb-figures" aria-label="Auto-answer figures">
          <div>
            <dt>Answers given</dt>
            <dd>{figures.answers_given.toLocaleString('en-US')}</dd>
          </div>
          <div>
            <dt>Hand-overs to a human</dt>
            <dd>{figures.handovers.toLocaleString('en-US')}</dd>
          </div>
          <div>
            <dt>Accuracy from feedback</dt>
            <dd>{figures.accuracy === null ? 'No rated answers yet' : `${figures.accuracy}% of ${figures.rated_answers} rated`}</dd>
          </div>
          <div>
            <dt>Visitors' votes</dt>
            <dd>
              {(figures.visitor_helpful ?? 0).toLocaleString('en-US')} helpful, {(figures.visitor_not_helpful ?? 0).toLocaleString('en-US')} not helpful
            </dd>
          </div>
        </dl>
      )}
    </section>
  );
}
