import { NEAR_BOTTOM_PX } from '@parley/shared';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { ChatMessage } from '../components/chatbot/ChatMessage';
import '../components/chatbot/chatbot.css';
import { Icon } from '../components/icons';
import { Composer } from '../components/chatbot/Composer';
import { AutoAnswerPanel } from '../components/chatbot/AutoAnswerPanel';
import { InsightsPanel } from '../components/chatbot/InsightsPanel';
import { PlanGate } from '../components/chatbot/PlanGate';
import { ReviewQueue } from '../components/chatbot/ReviewQueue';
import { SourcesPanel } from '../components/chatbot/SourcesPanel';
import { Banner, Button, Spinner } from '../components/ui';
import { useAuth } from '../stores/auth';
import { useChatbot } from '../stores/chatbot';
import { isPlanGate, useAiAdmin } from '../stores/chatbotAdmin';

const QUICK_REPLIES = ['Hello', 'Need help?', 'Share an image', 'Contact support'];
const QUICK_SEND_MS = 100;

/** Neural AI Chatbot (SPEC.md sections 2 and 4 "Chatbot"). */
export default function Chatbot() {
  const { status, error, messages, suggestions, progress, sending, sendError, feedback, loadHistory, send, sendFeedback, clearSendError } = useChatbot();
  const [draft, setDraft] = useState('');
  const [image, setImage] = useState<File | null>(null);
  const [panel, setPanel] = useState<'insights' | 'auto' | 'review' | 'sources' | null>(null);
  const { plan, canManage, counts, loadSettings } = useAiAdmin();
  const isOwner = useAuth((s) => s.user?.type === 'owner');
  const scrollRef = useRef<HTMLDivElement>(null);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const nearBottom = useRef(true);
  const justSent = useRef(false);
  const timers = useRef<number[]>([]);

  useEffect(() => {
    void loadHistory();
    void loadSettings();
    const pending = timers.current;
    return () => {
      for (const t of pending) window.clearTimeout(t);
    };
  }, [loadHistory, loadSettings]);

  // Follow new lines only when the reader is at the bottom or has just sent (SPEC.md section 4).
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs after each list change, on purpose
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    if (nearBottom.current || justSent.current) el.scrollTop = el.scrollHeight;
    justSent.current = false;
  }, [messages, sending, status]);

  const onScroll = () => {
    const el = scrollRef.current;
    if (el) nearBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight <= NEAR_BOTTOM_PX;
  };

  const submit = useCallback(
    async (text: string, file: File | null) => {
      justSent.current = true;
      const ok = await send(text, file);
      if (ok) {
        justSent.current = true;
        setDraft('');
        setImage(null);
        inputRef.current?.focus();
      }
    },
    [send],
  );

  // A chip fills the input, then sends after 100 ms so the text is seen first.
  // The plan's gate, known before sending (settings) or learned from the server's 403.
  const gate = plan && !plan.ai_available ? plan.message : isPlanGate(sendError) ? sendError : null;
  const locked = !!gate;
  const toggle = (p: NonNullable<typeof panel>) => setPanel((v) => (v === p ? null : p));

  const quick = (text: string) => {
    if (sending || locked) return;
    setDraft(text);
    timers.current.push(window.setTimeout(() => void submit(text, image), QUICK_SEND_MS));
  };

  const total = progress?.total_interactions ?? 0;
  const avg = Math.round((progress?.average_confidence ?? 0) * 100);

  return (
    <div className="cb">
      <header className="cb-head">
        <div>
          <h1>Neural AI Chatbot</h1>
          <ul className="cb-head-stats" aria-label="Assistant statistics">
            <li>
              Total interactions: <b>{total.toLocaleString('en-US')}</b>
            </li>
            <li>
              Average confidence: <b>{avg}%</b>
            </li>
          </ul>
        </div>
        <div className="cb-head-actions">
          <Button variant={panel === 'insights' ? 'primary' : 'secondary'} aria-expanded={panel === 'insights'} aria-controls="cb-insights" onClick={() => toggle('insights')}>
            AI Insights
          </Button>
          <Button variant={panel === 'auto' ? 'primary' : 'secondary'} aria-expanded={panel === 'auto'} aria-controls="cb-auto" onClick={() => toggle('auto')}>
            Auto-answer
          </Button>
          {canManage && (
            <Button variant={panel === 'sources' ? 'primary' : 'secondary'} aria-expanded={panel === 'sources'} aria-controls="cb-sources" onClick={() => toggle('sources')}>
              Knowledge sources
            </Button>
          )}
          {canManage && (
            <Button variant={panel === 'review' ? 'primary' : 'secondary'} aria-expanded={panel === 'review'} aria-controls="cb-review" onClick={() => toggle('review')}>
              Review knowledge
              {counts && counts.pending + counts.pending_feedback > 0 && (
                <span className="cb-count">
                  {counts.pending + counts.pending_feedback}
                  <span className="cb-sr"> waiting</span>
                </span>
              )}
            </Button>
          )}
        </div>
      </header>

      {gate && <PlanGate message={gate} canUpgrade={isOwner} />}
      {panel === 'insights' && <InsightsPanel fallback={progress} />}
      {panel === 'auto' && <AutoAnswerPanel />}
      {panel === 'review' && canManage && <ReviewQueue />}
      {panel === 'sources' && canManage && <SourcesPanel />}

      <section className="cb-chat" aria-label="Chat with the AI assistant">
        <div className="cb-scroll" ref={scrollRef} onScroll={onScroll}>
          {status === 'loading' ? (
            <div className="cb-state" role="status">
              <Spinner /> Loading chat history...
            </div>
          ) : status === 'error' ? (
            <div className="cb-state" role="alert">
              <p>{error}</p>
              <Button variant="secondary" onClick={() => void loadHistory()}>
                Retry
              </Button>
            </div>
          ) : messages.length === 0 && !sending ? (
            <div className="cb-empty">
              <div className="cb-empty-icon" aria-hidden="true">
                <Icon.bot />
              </div>
              <h2>Start a conversation with AI</h2>
              <p>
                {canManage
                  ? 'Ask a question, or teach the assistant about your business with "remember: ...". It learns from every answer you rate.'
                  : 'Ask a question about your business. The owner or an Admin teaches the assistant; your ratings help them improve it.'}
              </p>
              <ul className="cb-chips" aria-label="Quick replies">
                {QUICK_REPLIES.map((q) => (
                  <li key={q}>
                    <button type="button" className="cb-chip" onClick={() => quick(q)} disabled={sending || locked}>
                      {q}
                    </button>
                  </li>
                ))}
              </ul>
            </div>
          ) : (
            <ol className="cb-list" aria-label="Messages" aria-live="polite" aria-relevant="additions">
              {messages.map((m) => (
                <ChatMessage key={m.id} message={m} feedback={feedback[String(m.id)]} onFeedback={sendFeedback} />
              ))}
              {sending && (
                <li className="cb-typing" role="status">
                  <span className="cb-avatar" aria-hidden="true">
                    <Icon.bot />
                  </span>
                  <span className="cb-dots" aria-hidden="true"><span /><span /><span /></span>
                  <span className="cb-sr">The assistant is typing…</span>
                </li>
              )}
            </ol>
          )}
        </div>
        {sendError && !isPlanGate(sendError) && (
          <div className="cb-send-error">
            <Banner kind="error" onDismiss={clearSendError}>
              {sendError}
            </Banner>
          </div>
        )}
        {status === 'ready' && messages.length > 0 && suggestions.length > 0 && (
          <ul className="cb-suggest" aria-label="Suggestions">
            {suggestions.map((s) => (
              <li key={s}>
                <button type="button" className="cb-chip" onClick={() => quick(s)} disabled={sending || locked}>
                  {s}
                </button>
              </li>
            ))}
          </ul>
        )}
        <Composer draft={draft} onDraft={setDraft} image={image} onImage={setImage} sending={sending} onSend={() => void submit(draft, image)} inputRef={inputRef} locked={locked} />
      </section>
    </div>
  );
}
