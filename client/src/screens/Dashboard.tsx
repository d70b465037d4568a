import { Link } from '@tanstack/react-router';
import { Suspense, lazy, useEffect, useMemo, useState } from 'react';
import { BellButton, PageHeader } from '../components/layout/PageHeader';
import { Icon } from '../components/icons';
import { Banner, Spinner } from '../components/ui';
import { avatarStyle, firstFiveWords, initial, minutesAgo, preview, shortDateTime, visitorName } from '../lib/format';
import { CHAT_LIMIT_NOTICE, showsChatLimitNotice } from '../lib/plan';
import { useAuth } from '../stores/auth';
import { useDashboard } from '../stores/dashboard';
import { RANGES, formatDuration } from '../stores/dashboardLogic';

// echarts lives in its own chunk, fetched only by this screen.
const LiveLineChart = lazy(() => import('../components/dashboard/Charts').then((m) => ({ default: m.LiveLineChart })));
const DoughnutChart = lazy(() => import('../components/dashboard/Charts').then((m) => ({ default: m.DoughnutChart })));

type SeriesKey = 'visitors' | 'chats' | 'pageViews' | 'aiAssistant';
const SERIES: { key: SeriesKey; label: string; color: string }[] = [
  { key: 'visitors', label: 'Visitors', color: '#667eea' },
  { key: 'chats', label: 'Chats', color: '#10b981' },
  { key: 'pageViews', label: 'Page Views', color: '#f59e0b' },
  { key: 'aiAssistant', label: 'AI Assistant', color: '#ec4899' },
];

const NO_DATA = 'No data yet';

function StatCard({ label, value, foot, icon: IconC, tone }: { label: string; value: string; foot: React.ReactNode; icon: () => React.ReactElement; tone: number }) {
  return (
    <div className="card stat-card">
      <div className="stat-top">
        <span className="stat-label">{label}</span>
        <span className={`stat-icon c${tone}`} aria-hidden="true">
          <IconC />
        </span>
      </div>
      <div className="stat-value" style={value === NO_DATA ? { fontSize: 18, color: 'var(--muted)', fontWeight: 600 } : undefined}>
        {value}
      </div>
      <div className="stat-foot">{foot}</div>
    </div>
  );
}

function ChartFallback() {
  return (
    <div className="loading-block" style={{ height: 240 }}>
      <Spinner />
    </div>
  );
}

/**
 * The bell's red dot: on while a conversation has activity newer than the user last opened the
 * bell (kept per user in local storage); opening it clears the dot.
 */
function useBellSeen(userId: number | undefined, conversations: { last_message_at: string | null }[]) {
  const key = `parley_bell_seen_${userId ?? 'anon'}`;
  const [seenAt, setSeenAt] = useState(() => Number(localStorage.getItem(key) ?? 0));
  const latest = conversations.reduce((max, c) => Math.max(max, c.last_message_at ? Date.parse(c.last_message_at) || 0 : 0), 0);
  return {
    unseen: latest > seenAt,
    markSeen: () => {
      const now = Math.max(Date.now(), latest);
      localStorage.setItem(key, String(now));
      setSeenAt(now);
    },
  };
}

/** Dashboard (SPEC.md section 2 /dashboard) with real figures (PRODUCT.md section 10). */
export default function Dashboard() {
  const user = useAuth((s) => s.user);
  const { range, figures, visitors, conversations, loading, error, onlineNow, setRange, load, connect } = useDashboard();
  const [spinning, setSpinning] = useState(false);
  const [showFilters, setShowFilters] = useState(false);
  const [shown, setShown] = useState<Record<SeriesKey, boolean>>({ visitors: true, chats: true, pageViews: true, aiAssistant: true });

  useEffect(() => {
    void load();
    // The plan's monthly chat count changes while the console is open: the notice reads it fresh.
    void useAuth.getState().refresh();
    return connect();
  }, [load, connect]);

  const refresh = () => {
    setSpinning(true);
    setTimeout(() => setSpinning(false), 1000);
    void load();
    void useAuth.getState().refresh();
  };

  const f = figures;
  const lineSeries = useMemo(() => {
    if (!f) return [];
    const data: Record<SeriesKey, number[] | null> = { visitors: f.series.visitors, chats: f.series.chats, pageViews: f.series.page_views, aiAssistant: f.series.ai_answers };
    return SERIES.filter((s) => shown[s.key] && data[s.key]).map((s) => ({ name: s.label, data: data[s.key]!, color: s.color }));
  }, [f, shown]);
  const missingSeries = f ? SERIES.filter((s) => shown[s.key] && ((s.key === 'pageViews' && !f.series.page_views) || (s.key === 'aiAssistant' && !f.series.ai_answers))) : [];

  const agentOf = (visitorId: string) => {
    const c = conversations.find((x) => x.visitor_id === visitorId);
    if (!c || c.assignee_id === null) return 'Unassigned';
    return c.assignee_id === user?.id ? user.name : c.assignee_name || 'Team member';
  };
  const bell = useBellSeen(user?.id, conversations);
  const activity = conversations.slice(0, 5);

  return (
    <>
      <PageHeader
        title={`Welcome back, ${firstFiveWords(user?.name)}!`}
        subtitle="Here's what's happening on your website."
        actions={
          <>
            {/* biome-ignore lint/a11y/useSemanticElements: a toolbar-like button group, not a form fieldset */}
            <div className="segmented" role="group" aria-label="Time range">
              {RANGES.map((r) => (
                <button key={r.value} type="button" aria-pressed={range === r.value} onClick={() => setRange(r.value)}>
                  {r.label}
                </button>
              ))}
            </div>
            <button type="button" className="icon-btn" aria-label="Refresh" onClick={refresh} disabled={spinning}>
              <span className={spinning ? 'spin' : undefined} style={{ display: 'inline-flex' }}>
                <Icon.refresh />
              </span>
            </button>
            <BellButton
              dot={bell.unseen}
              onClick={() => {
                bell.markSeen();
                document.getElementById('recent-activity')?.scrollIntoView({ block: 'center' });
              }}
            />
          </>
        }
      />
      {showsChatLimitNotice(user) && (
        <Banner kind="info">
          {CHAT_LIMIT_NOTICE} <Link to="/subscription">Upgrade your plan</Link>
        </Banner>
      )}
      {error && <Banner kind="error">{error}</Banner>}
      {loading && !f ? (
        <div className="card loading-block">
          <Spinner />
          <p>Loading your dashboard...</p>
        </div>
      ) : (
        <div className="section-gap">
          <div className="grid grid-4">
            <StatCard
              label="Active Visitors"
              tone={0}
              icon={Icon.users}
              value={String(f?.active_visitors ?? 0)}
              foot={
                <>
                  {f?.visitors_change_pct !== null && f?.visitors_change_pct !== undefined ? (
                    <span className={f.visitors_change_pct >= 0 ? 'delta-up' : 'delta-down'}>
                      {f.visitors_change_pct >= 0 ? '+' : ''}
                      {f.visitors_change_pct}%
                    </span>
                  ) : (
                    <span>No earlier period to compare</span>
                  )}
                  {onlineNow.size > 0 && <span>· {onlineNow.size} online now</span>}
                </>
              }
            />
            <StatCard label="Active Chats" tone={1} icon={Icon.chat} value={String(f?.active_chats ?? 0)} foot="Conversations in this period" />
            <StatCard
              label="AI Resolved"
              tone={2}
              icon={Icon.bot}
              value={f?.ai_resolved !== null && f?.ai_resolved !== undefined ? String(f.ai_resolved) : NO_DATA}
              foot={f?.ai_accuracy_pct !== null && f?.ai_accuracy_pct !== undefined ? `${f.ai_accuracy_pct}% accuracy` : 'The AI assistant has not answered yet'}
            />
            <StatCard
              label="Satisfaction"
              tone={3}
              icon={Icon.check}
              value={f?.satisfaction !== null && f?.satisfaction !== undefined ? `${f.satisfaction}/5` : NO_DATA}
              foot={f?.satisfaction !== null && f?.satisfaction !== undefined ? 'From visitor ratings in this period' : 'No visitor ratings in this period'}
            />
          </div>

          <div className="grid grid-main-side">
            <section className="card" aria-labelledby="live-analytics">
              <div className="card-header">
                <div>
                  <h2 id="live-analytics" className="card-title">
                    Live Analytics
                  </h2>
                  <p className="card-sub">{range === '1h' || range === '24h' ? 'Last 24 hours, per hour' : `Last ${range === '7d' ? 7 : 30} days, per day`}</p>
                </div>
                <button type="button" className="btn btn-secondary btn-sm" aria-expanded={showFilters} onClick={() => setShowFilters((v) => !v)}>
                  Filters
                </button>
              </div>
              <div className="card-body">
                {showFilters && (
                  <fieldset className="checkbox-row" style={{ border: 'none', margin: 0 }}>
                    <legend className="sr-only">Series shown</legend>
                    {SERIES.map((s) => (
                      <label key={s.key}>
                        <input type="checkbox" checked={shown[s.key]} onChange={(e) => setShown((v) => ({ ...v, [s.key]: e.target.checked }))} />
                        {s.label}
                      </label>
                    ))}
                  </fieldset>
                )}
                {f && (
                  <Suspense fallback={<ChartFallback />}>
                    <LiveLineChart labels={f.series.labels} series={lineSeries} ariaLabel="Visitors and chats over time" />
                  </Suspense>
                )}
                {missingSeries.length > 0 && <p className="muted" style={{ fontSize: 13 }}>{missingSeries.map((s) => s.label).join(' and ')}: no data yet.</p>}
              </div>
            </section>
            <section className="card" aria-labelledby="device-breakdown">
              <div className="card-header">
                <h2 id="device-breakdown" className="card-title">
                  Device Breakdown
                </h2>
              </div>
              <div className="card-body">
                {f?.devices ? (
                  <Suspense fallback={<ChartFallback />}>
                    <DoughnutChart
                      ariaLabel={`Desktop ${f.devices.desktop}%, Mobile ${f.devices.mobile}%, Tablet ${f.devices.tablet}%`}
                      data={[
                        { name: 'Desktop', value: f.devices.desktop, color: '#667eea' },
                        { name: 'Mobile', value: f.devices.mobile, color: '#10b981' },
                        { name: 'Tablet', value: f.devices.tablet, color: '#f59e0b' },
                      ]}
                    />
                  </Suspense>
                ) : (
                  <p className="empty">{NO_DATA}: devices appear once visitors arrive.</p>
                )}
              </div>
            </section>
          </div>

          <div className="grid grid-main-side">
            <section className="card" aria-labelledby="visitor-history">
              <div className="card-header">
                <h2 id="visitor-history" className="card-title">
                  Visitor History
                </h2>
              </div>
              {visitors.length === 0 ? (
                <p className="empty">You don't have any visitors yet</p>
              ) : (
                <div className="table-wrap">
                  <table className="table">
                    <thead>
                      <tr>
                        <th scope="col">Visitor</th>
                        <th scope="col">Agent</th>
                        <th scope="col">Time</th>
                      </tr>
                    </thead>
                    <tbody>
                      {visitors.slice(0, 8).map((v, i) => (
                        <tr key={v.id}>
                          <td>
                            <div className="cell-user">
                              <span className={`avatar avatar-sm ${avatarStyle(i)}`} aria-hidden="true">
                                {initial(v.name)}
                              </span>
                              <div>
                                <div className="cell-user-name">{visitorName(v.name)}</div>
                                <div className="cell-user-sub">{v.email || v.country || 'Unknown'}</div>
                              </div>
                            </div>
                          </td>
                          <td>{agentOf(v.id)}</td>
                          <td>{shortDateTime(v.created_at, minutesAgo(v.created_at))}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
            </section>
            <section className="card" aria-labelledby="recent-activity">
              <div className="card-header">
                <h2 id="recent-activity" className="card-title">
                  Recent Activity
                </h2>
              </div>
              <div className="card-body">
                {activity.length === 0 ? (
                  <p className="muted">No activity yet.</p>
                ) : (
                  <ul className="activity">
                    {activity.map((c) => (
                      <li key={c.visitor_id}>
                        <span className="activity-dot" aria-hidden="true" />
                        <div>
                          <div className="activity-text">
                            <strong>{visitorName(c.visitor_name)}</strong>: {preview(c.last_message)}
                          </div>
                          <div className="activity-time">{minutesAgo(c.last_message_at)}</div>
                        </div>
                      </li>
                    ))}
                  </ul>
                )}
              </div>
            </section>
          </div>

          {/* No Uptime card: the app cannot measure its own availability (docs/DECISIONS.md). */}
          <div className="grid grid-3">
            <StatCard label="Avg Response" tone={1} icon={Icon.clock} value={f?.avg_first_response_seconds != null ? formatDuration(f.avg_first_response_seconds) : NO_DATA} foot="First reply to a visitor" />
            <StatCard label="AI Accuracy" tone={0} icon={Icon.bot} value={f?.ai_accuracy_pct != null ? `${f.ai_accuracy_pct}%` : NO_DATA} foot="Helpful AI answers" />
            <StatCard label="Team Online" tone={3} icon={Icon.team} value={f?.team_online ? `${f.team_online.online}/${f.team_online.total}` : NO_DATA} foot="Agents signed in now" />
          </div>
        </div>
      )}
    </>
  );
}
