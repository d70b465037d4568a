import { type FormEvent, useEffect, useRef, useState } from 'react';

type Tab = 'chat' | 'analytics' | 'ai';
const TABS: { id: Tab; label: string; anchor: string }[] = [
  { id: 'chat', label: 'Live Chat', anchor: 'demo-live-chat' },
  { id: 'analytics', label: 'Analytics', anchor: 'demo-analytics' },
  { id: 'ai', label: 'AI Assistant', anchor: 'demo-ai' },
];
const REPLY_MS = 1500;
const CANNED_REPLY = "Thanks for reaching out! An agent will be right with you — we usually reply in under a minute.";

interface Line {
  id: number;
  from: 'agent' | 'visitor';
  text: string;
}

function LiveChatDemo() {
  const [lines, setLines] = useState<Line[]>([
    { id: 1, from: 'agent', text: 'Hello! How can we assist you today?' },
    { id: 2, from: 'visitor', text: "Hi! I'd like to know more about your pricing." },
    { id: 3, from: 'agent', text: 'Of course! Our Starter plan is free forever. Want me to walk you through Professional?' },
  ]);
  const [draft, setDraft] = useState('');
  const [typing, setTyping] = useState(false);
  const timers = useRef<number[]>([]);
  const logRef = useRef<HTMLDivElement>(null);

  useEffect(
    () => () => {
      for (const t of timers.current) window.clearTimeout(t);
    },
    [],
  );
  // biome-ignore lint/correctness/useExhaustiveDependencies: follow the log whenever a line or the typing note appears
  useEffect(() => {
    const log = logRef.current;
    if (log) log.scrollTop = log.scrollHeight;
  }, [lines, typing]);

  const send = (e: FormEvent) => {
    e.preventDefault();
    const text = draft.trim();
    if (!text) return;
    setLines((l) => [...l, { id: Date.now(), from: 'visitor', text }]);
    setDraft('');
    setTyping(true);
    timers.current.push(
      window.setTimeout(() => {
        setTyping(false);
        setLines((l) => [...l, { id: Date.now() + 1, from: 'agent', text: CANNED_REPLY }]);
      }, REPLY_MS),
    );
  };

  return (
    <>
      <div className="lp-chat-log" ref={logRef} role="log" aria-label="Demo conversation">
        {lines.map((l) => (
          <div key={l.id} className={`lp-bubble ${l.from}`}>
            {l.text}
          </div>
        ))}
        {typing && <div className="lp-typing">Agent is typing…</div>}
      </div>
      <form className="lp-chat-form" onSubmit={send}>
        <input aria-label="Type a demo message" placeholder="Type a message…" value={draft} onChange={(e) => setDraft(e.target.value)} />
        <button type="submit" className="lp-btn lp-btn-primary" disabled={!draft.trim()}>
          Send
        </button>
      </form>
    </>
  );
}

const BARS = [
  { day: 'Mon', value: 45 },
  { day: 'Tue', value: 62 },
  { day: 'Wed', value: 58 },
  { day: 'Thu', value: 80 },
  { day: 'Fri', value: 95 },
  { day: 'Sat', value: 52 },
  { day: 'Sun', value: 40 },
];

function AnalyticsDemo() {
  return (
    <>
      <div className="lp-stats">
        <div className="lp-stat"><b>2,847</b><span>Visitors this week</span></div>
        <div className="lp-stat"><b>94%</b><span>Chats answered in under 1 min</span></div>
        <div className="lp-stat"><b>4.8/5</b><span>Customer satisfaction</span></div>
      </div>
      <ul className="lp-bars" aria-label="Chats per day (sample data)">
        {BARS.map((b) => (
          <li key={b.day} style={{ height: `${b.value}%` }} aria-label={`${b.day}: ${b.value} chats`}>
            <span aria-hidden="true">{b.day}</span>
          </li>
        ))}
      </ul>
    </>
  );
}

function AiDemo() {
  const [toggles, setToggles] = useState({ auto: true, learn: true, handoff: false });
  const items: { key: keyof typeof toggles; label: string }[] = [
    { key: 'auto', label: 'Answer common questions automatically' },
    { key: 'learn', label: 'Learn from agent replies' },
    { key: 'handoff', label: 'Hand over to a human when unsure' },
  ];
  return (
    <>
      <div className="lp-stats">
        <div className="lp-stat"><b>92%</b><span>Answer accuracy</span></div>
        <div className="lp-stat"><b>1,204</b><span>Questions resolved by AI</span></div>
        <div className="lp-stat"><b>318</b><span>Patterns learned</span></div>
      </div>
      <div className="lp-toggles">
        {items.map((it) => (
          <div className="lp-toggle" key={it.key}>
            <span id={`lp-t-${it.key}`}>{it.label}</span>
            <button
              type="button"
              role="switch"
              className="lp-switch"
              aria-checked={toggles[it.key]}
              aria-labelledby={`lp-t-${it.key}`}
              onClick={() => setToggles((t) => ({ ...t, [it.key]: !t[it.key] }))}
            />
          </div>
        ))}
      </div>
    </>
  );
}

/** Interactive demo: three tabs with static sample data. */
export function Demo() {
  const [tab, setTab] = useState<Tab>('chat');

  // The Solutions menu links to #demo-*; follow the hash to the matching tab.
  useEffect(() => {
    const sync = () => {
      const match = TABS.find((t) => `#${t.anchor}` === window.location.hash);
      if (match) setTab(match.id);
    };
    sync();
    window.addEventListener('hashchange', sync);
    return () => window.removeEventListener('hashchange', sync);
  }, []);

  return (
    <section className="lp-section alt" id="demo" aria-labelledby="lp-demo-title">
      <div className="lp-wrap">
        <h2 id="lp-demo-title">Try it right here</h2>
        <p className="lp-sub">Type a message, peek at the analytics, flip the AI switches. This is sample data — yours will look even better.</p>
        <div className="lp-demo">
          <div className="lp-tabs" role="tablist" aria-label="Demo">
            {TABS.map((t) => (
              <button
                key={t.id}
                id={t.anchor}
                type="button"
                role="tab"
                aria-selected={tab === t.id}
                aria-controls={`lp-panel-${t.id}`}
                onClick={() => setTab(t.id)}
              >
                {t.label}
              </button>
            ))}
          </div>
          <div className="lp-panel" role="tabpanel" id={`lp-panel-${tab}`} aria-labelledby={TABS.find((t) => t.id === tab)?.anchor}>
            {tab === 'chat' && <LiveChatDemo />}
            {tab === 'analytics' && <AnalyticsDemo />}
            {tab === 'ai' && <AiDemo />}
          </div>
        </div>
      </div>
    </section>
  );
}
