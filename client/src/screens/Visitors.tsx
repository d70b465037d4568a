import { Link } from '@tanstack/react-router';
import { useEffect, useRef, useState } from 'react';
import { BellButton, PageHeader } from '../components/layout/PageHeader';
import { Icon } from '../components/icons';
import { Banner, Button, Dialog, Spinner } from '../components/ui';
import { OnlineNow } from '../components/visitors/OnlineNow';
import { VisitorCard, VisitorDetails, visitorName } from '../components/visitors/VisitorCard';
import { VisitorFilters } from '../components/visitors/VisitorFilters';
import { initial, shortDateTime } from '../lib/format';
import { type VisitorRow, useVisitors } from '../stores/visitors';

/** Visitors management (SPEC.md section 2 /visitors; issue 16: online now, search, filters, paging). */
export default function Visitors() {
  const s = useVisitors();
  const [open, setOpen] = useState<VisitorRow | null>(null);
  const sentinel = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const st = useVisitors.getState();
    void st.load();
    void st.loadOnline();
    void st.loadCountries();
    return st.connect();
  }, []);

  // The next page loads when the end of the list scrolls into view.
  const hasMore = Boolean(s.nextCursor);
  useEffect(() => {
    const el = sentinel.current;
    if (!el || !hasMore || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) void useVisitors.getState().loadMore();
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, [hasMore]);

  const start = (v: VisitorRow) => useVisitors.getState().remember(v);
  const anyFilter = Boolean(s.filters.q.trim() || s.filters.online || s.filters.country || s.filters.has_conversation);
  const stats = [
    { label: 'Total Visitors', value: String(s.accountTotal), icon: Icon.users },
    { label: 'Countries', value: String(s.countries), icon: Icon.globe },
    { label: 'Last Visit', value: s.visitors[0] ? shortDateTime(s.visitors[0].created_at) : 'N/A', icon: Icon.clock },
  ];

  return (
    <>
      <PageHeader title="Visitors" subtitle="Everyone who has opened the chat widget on your website" actions={<BellButton />} />
      {s.error && <Banner kind="error">{s.error}</Banner>}
      <div className="grid grid-3" style={{ marginBottom: 24 }}>
        {stats.map((c, i) => (
          <div key={c.label} className="card stat-card">
            <div className="stat-top">
              <span className="stat-label">{c.label}</span>
              <span className={`stat-icon c${i}`} aria-hidden="true">
                <c.icon />
              </span>
            </div>
            <div className="stat-value" style={{ fontSize: c.label === 'Last Visit' ? 22 : undefined }}>
              {c.value}
            </div>
          </div>
        ))}
      </div>
      <OnlineNow onStart={start} />
      <VisitorFilters />
      {s.loading ? (
        <div className="card loading-block">
          <Spinner />
          <p>Loading visitors...</p>
        </div>
      ) : s.visitors.length === 0 ? (
        <div className="card empty">
          <div className="empty-icon">
            <Icon.users />
          </div>
          {anyFilter ? (
            <>
              <h2>No visitors match</h2>
              <p>Try another search or filter.</p>
            </>
          ) : (
            <>
              <h2>No visitors found</h2>
              <p>Visitors will appear here when they visit your website.</p>
            </>
          )}
        </div>
      ) : (
        <>
          <p className="muted" aria-live="polite" style={{ marginTop: 0 }}>
            Showing {s.visitors.length} of {s.total} {s.total === 1 ? 'visitor' : 'visitors'}
          </p>
          <ul className="grid grid-3" style={{ listStyle: 'none', padding: 0, margin: 0 }} aria-label="Visitor list">
            {s.visitors.map((v, i) => (
              <VisitorCard key={v.id} v={v} index={i} onDetails={() => setOpen(v)} onStart={() => start(v)} />
            ))}
          </ul>
          <div ref={sentinel} style={{ display: 'flex', justifyContent: 'center', padding: 16 }}>
            {hasMore && (
              <Button variant="secondary" busy={s.loadingMore} onClick={() => void s.loadMore()}>
                Load more visitors
              </Button>
            )}
          </div>
        </>
      )}
      <Dialog
        open={open !== null}
        title="Visitor Details"
        onClose={() => setOpen(null)}
        footer={
          <>
            <Button variant="secondary" onClick={() => setOpen(null)}>
              Close
            </Button>
            <Link to="/conversations" search={open ? { visitor: open.id } : {}} className="btn btn-primary btn-md" onClick={() => open && start(open)}>
              <Icon.chat /> Start Chat
            </Link>
          </>
        }
      >
        {open && (
          <div style={{ display: 'grid', gap: 16 }}>
            <div className="visitor-head">
              <span className="avatar avatar-lg avatar-brand" aria-hidden="true">
                {initial(open.name)}
              </span>
              <div>
                <div className="visitor-name" style={{ fontSize: 18 }}>
                  {visitorName(open)}
                </div>
                <div className="visitor-time">Visited {shortDateTime(open.created_at)}</div>
              </div>
            </div>
            <VisitorDetails v={open} />
          </div>
        )}
      </Dialog>
    </>
  );
}
