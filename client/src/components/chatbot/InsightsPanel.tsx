import { useEffect } from 'react';
import { type LearningProgress, useChatbot } from '../../stores/chatbot';
import { Spinner } from '../ui';

function Meter({ label, value, max = 100, display }: { label: string; value: number; max?: number; display: string }) {
  const pct = Math.max(0, Math.min(100, (value / max) * 100));
  return (
    <div className="cb-meter">
      <div className="cb-meter-head">
        <span>{label}</span>
        <b>{display}</b>
      </div>
      <div className="cb-meter-track" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(pct)}>
        <div className="cb-meter-fill" style={{ width: `${pct}%` }} />
      </div>
    </div>
  );
}

/** 'AI Insights': the learning-progress panel (GET api/chatbot/insights, falling back to the last known figures). */
export function InsightsPanel({ fallback }: { fallback: LearningProgress | null }) {
  const { insights, insightsLoading, loadInsights } = useChatbot();
  useEffect(() => {
    void loadInsights();
  }, [loadInsights]);
  const p = insights ?? fallback;
  return (
    <section className="cb-insights" id="cb-insights" aria-labelledby="cb-insights-title">
      <h2 id="cb-insights-title">Learning progress</h2>
      {!p && insightsLoading ? (
        <Spinner label="Loading insights" />
      ) : !p ? (
        <p className="cb-muted">No learning data yet. Chat with the assistant and rate its answers to teach it.</p>
      ) : (
        <div className="cb-insights-grid">
          <div className="cb-insight"><b>{p.total_interactions.toLocaleString('en-US')}</b><span>Total interactions</span></div>
          <div className="cb-insight"><b>{p.learned_patterns.toLocaleString('en-US')}</b><span>Learned patterns</span></div>
          <Meter label="Average confidence" value={p.average_confidence * 100} display={`${Math.round(p.average_confidence * 100)}%`} />
          <Meter label="Learning efficiency" value={p.learning_efficiency} display={`${Math.round(p.learning_efficiency)}%`} />
        </div>
      )}
    </section>
  );
}
