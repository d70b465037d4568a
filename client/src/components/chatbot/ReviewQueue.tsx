import { KNOWLEDGE_ANSWER_MAX, KNOWLEDGE_QUESTION_MAX, knowledgeChangeSchema } from '@parley/shared';
import { useEffect, useState } from 'react';
import { type KnowledgeItem, type KnowledgeStatus, useAiAdmin } from '../../stores/chatbotAdmin';
import { Banner, Button, Spinner, TextAreaField } from '../ui';

const TABS: { status: KnowledgeStatus; label: string }[] = [
  { status: 'pending', label: 'Waiting for review' },
  { status: 'approved', label: 'Approved' },
  { status: 'rejected', label: 'Rejected' },
];

const FEEDBACK_LABEL = { helpful: 'Helpful', partially_helpful: 'Partially helpful', not_helpful: 'Not helpful' } as const;

function origin(item: KnowledgeItem): string {
  const who = item.author?.name ?? 'a former team member';
  return item.source === 'taught' ? `Taught by ${who}` : `Learned from a reply by ${who}`;
}

function KnowledgeCard({ item, onError }: { item: KnowledgeItem; onError: (text: string) => void }) {
  const review = useAiAdmin((s) => s.review);
  const [editing, setEditing] = useState(false);
  const [question, setQuestion] = useState(item.question);
  const [answer, setAnswer] = useState(item.answer);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);

  const act = async (change: Parameters<typeof review>[1]) => {
    setBusy(true);
    const error = await review(item.id, change);
    setBusy(false);
    if (error) onError(error);
    else setEditing(false);
  };

  const saveEdit = async (approve: boolean) => {
    const parsed = knowledgeChangeSchema.safeParse({ question, answer, ...(approve ? { status: 'approved' } : {}) });
    if (!parsed.success) {
      const next: Record<string, string> = {};
      for (const issue of parsed.error.issues) next[String(issue.path[0])] ??= issue.message;
      return setErrors(next);
    }
    setErrors({});
    await act(parsed.data);
  };

  return (
    <li className="cb-k" aria-label={`Knowledge: ${item.question}`}>
      <p className="cb-k-origin">
        {origin(item)} · {new Date(item.created_at).toLocaleDateString('en-US', { month: 'short', day: 'numeric' })}
        {item.redactions > 0 && <span className="cb-k-note"> · {item.redactions} private detail(s) removed</span>}
      </p>
      {editing ? (
        <div className="cb-k-edit">
          <TextAreaField label="Question" value={question} maxLength={KNOWLEDGE_QUESTION_MAX} error={errors.question} onChange={(e) => setQuestion(e.target.value)} rows={2} />
          <TextAreaField label="Answer" value={answer} maxLength={KNOWLEDGE_ANSWER_MAX} error={errors.answer} onChange={(e) => setAnswer(e.target.value)} rows={3} />
          <div className="cb-k-actions">
            <Button size="sm" busy={busy} onClick={() => void saveEdit(true)}>
              Save and approve
            </Button>
            <Button size="sm" variant="secondary" disabled={busy} onClick={() => void saveEdit(false)}>
              Save
            </Button>
            <Button size="sm" variant="ghost" disabled={busy} onClick={() => setEditing(false)}>
              Cancel
            </Button>
          </div>
        </div>
      ) : (
        <>
          <p className="cb-k-q">
            <span className="cb-k-label">Visitor asks</span> <span>{item.question}</span>
          </p>
          <p className="cb-k-a">
            <span className="cb-k-label">Assistant answers</span> <span>{item.answer}</span>
          </p>
          <div className="cb-k-actions">
            {item.status !== 'approved' && (
              <Button size="sm" busy={busy} onClick={() => void act({ status: 'approved' })}>
                Approve
              </Button>
            )}
            <Button size="sm" variant="secondary" disabled={busy} onClick={() => setEditing(true)}>
              Edit
            </Button>
            {item.status !== 'rejected' && (
              <Button size="sm" variant="danger" disabled={busy} onClick={() => void act({ status: 'rejected' })}>
                Reject
              </Button>
            )}
          </div>
        </>
      )}
    </li>
  );
}

/** The review queue: what the assistant learned, approved before visitors get it; and Agents' feedback to confirm. */
export function ReviewQueue() {
  const { queueStatus, items, nextCursor, queueLoading, queueError, counts, loadQueue, loadMore, feedback, feedbackCursor, loadFeedback, decideFeedback } = useAiAdmin();
  const [error, setError] = useState('');

  useEffect(() => {
    void loadQueue('pending');
    void loadFeedback();
  }, [loadQueue, loadFeedback]);

  const decide = async (id: number, decision: 'confirm' | 'dismiss') => {
    const e = await decideFeedback(id, decision);
    if (e) setError(e);
  };

  return (
    <section className="cb-panel" id="cb-review" aria-labelledby="cb-review-title">
      <h2 id="cb-review-title">Review what the assistant learned</h2>
      <p className="cb-muted">
        The assistant learns from your team's replies, without the visitor's own details (names, emails, phone numbers, links with tokens,
        codes, order numbers, addresses). Visitors only get answers you approved here.
      </p>
      {error && (
        <Banner kind="error" onDismiss={() => setError('')}>
          {error}
        </Banner>
      )}
      <div className="cb-tabs" role="tablist" aria-label="Knowledge by status">
        {TABS.map((t) => (
          <button
            key={t.status}
            type="button"
            role="tab"
            aria-selected={queueStatus === t.status}
            className="cb-tab"
            onClick={() => void loadQueue(t.status)}
          >
            {t.label}
            {counts && <span className="cb-count">{counts[t.status]}</span>}
          </button>
        ))}
      </div>
      <div role="tabpanel" aria-label={TABS.find((t) => t.status === queueStatus)?.label}>
        {queueError ? (
          <p role="alert">{queueError}</p>
        ) : items.length === 0 && queueLoading ? (
          <Spinner label="Loading learned knowledge" />
        ) : items.length === 0 ? (
          <p className="cb-muted">{queueStatus === 'pending' ? 'Nothing waiting for review.' : 'Nothing here yet.'}</p>
        ) : (
          <ul className="cb-k-list">
            {items.map((item) => (
              <KnowledgeCard key={`${item.id}-${item.status}-${item.answer}`} item={item} onError={setError} />
            ))}
          </ul>
        )}
        {nextCursor && (
          <Button variant="secondary" size="sm" busy={queueLoading} onClick={() => void loadMore()}>
            Load more
          </Button>
        )}
      </div>
      {feedback.length > 0 && (
        <div className="cb-fb-review">
          <h3>Team feedback waiting for confirmation</h3>
          <p className="cb-muted">Agents' ratings change the assistant's answers only once you confirm them.</p>
          <ul className="cb-k-list">
            {feedback.map((f) => (
              <li key={f.message_id} className="cb-k" aria-label={`Feedback from ${f.user.name}`}>
                <p className="cb-k-origin">
                  {f.user.name} rated <b>{FEEDBACK_LABEL[f.feedback]}</b>
                </p>
                <p className="cb-k-q">
                  <span className="cb-k-label">Question</span> <span>{f.question}</span>
                </p>
                <p className="cb-k-a">
                  <span className="cb-k-label">Answer</span> <span>{f.answer}</span>
                </p>
                <div className="cb-k-actions">
                  <Button size="sm" onClick={() => void decide(f.message_id, 'confirm')}>
                    Confirm
                  </Button>
                  <Button size="sm" variant="secondary" onClick={() => void decide(f.message_id, 'dismiss')}>
                    Dismiss
                  </Button>
                </div>
              </li>
            ))}
          </ul>
          {feedbackCursor && (
            <Button variant="secondary" size="sm" onClick={() => void loadFeedback(true)}>
              Load more feedback
            </Button>
          )}
        </div>
      )}
    </section>
  );
}
