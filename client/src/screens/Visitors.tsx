import { Link } from '@tanstack/react-router';
import type { VisitorDto } from '@parley/shared';
import { useEffect, useState } from 'react';
import { BellButton, PageHeader } from '../components/layout/PageHeader';
import { Icon } from '../components/icons';
import { Banner, Button, Dialog, Spinner } from '../components/ui';
import { avatarStyle, initial, shortDateTime } from '../lib/format';
import { countCountries, useVisitors } from '../stores/visitors';

const name = (v: VisitorDto) => v.name?.trim() || 'Anonymous';

function Details({ v }: { v: VisitorDto }) {
  return (
    <dl className="kv">
      <div>
        <dt><Icon.mail /> Email</dt>
        <dd>{v.email || 'N/A'}</dd>
      </div>
      <div>
        <dt><Icon.globe /> Country</dt>
        <dd>{v.country || 'Unknown'}</dd>
      </div>
      <div>
        <dt>IP</dt>
        <dd>{v.ip || 'N/A'}</dd>
      </div>
    </dl>
  );
}

/** Visitors management (SPEC.md section 2 /visitors). */
export default function Visitors() {
  const { visitors, loading, error, load } = useVisitors();
  const [open, setOpen] = useState<VisitorDto | null>(null);

  useEffect(() => {
    void load();
  }, [load]);

  const stats = [
    { label: 'Total Visitors', value: String(visitors.length), icon: Icon.users },
    { label: 'Countries', value: String(countCountries(visitors)), icon: Icon.globe },
    { label: 'Last Visit', value: visitors[0] ? shortDateTime(visitors[0].created_at) : 'N/A', icon: Icon.clock },
  ];

  return (
    <>
      <PageHeader title="Visitors" subtitle="Everyone who has opened the chat widget on your website" actions={<BellButton />} />
      {error && <Banner kind="error">{error}</Banner>}
      <div className="grid grid-3" style={{ marginBottom: 24 }}>
        {stats.map((s, i) => (
          <div key={s.label} className="card stat-card">
            <div className="stat-top">
              <span className="stat-label">{s.label}</span>
              <span className={`stat-icon c${i}`} aria-hidden="true">
                <s.icon />
              </span>
            </div>
            <div className="stat-value" style={{ fontSize: s.label === 'Last Visit' ? 22 : undefined }}>
              {s.value}
            </div>
          </div>
        ))}
      </div>
      {loading ? (
        <div className="card loading-block">
          <Spinner />
          <p>Loading visitors...</p>
        </div>
      ) : visitors.length === 0 ? (
        <div className="card empty">
          <div className="empty-icon">
            <Icon.users />
          </div>
          <h2>No visitors found</h2>
          <p>Visitors will appear here when they visit your website.</p>
        </div>
      ) : (
        <ul className="grid grid-3" style={{ listStyle: 'none', padding: 0, margin: 0 }} aria-label="Visitor list">
          {visitors.map((v, i) => (
            <li key={v.id} className="card visitor-card">
              <div className="visitor-head">
                <span className={`avatar avatar-md ${avatarStyle(i)}`} aria-hidden="true">
                  {initial(v.name)}
                </span>
                <div style={{ minWidth: 0 }}>
                  <h2 className="visitor-name" style={{ fontSize: 15.5 }}>
                    {name(v)}
                  </h2>
                  <div className="visitor-time">{shortDateTime(v.created_at)}</div>
                </div>
              </div>
              <Details v={v} />
              <Button variant="secondary" size="sm" onClick={() => setOpen(v)} aria-label={`View Details of ${name(v)}`}>
                View Details
              </Button>
            </li>
          ))}
        </ul>
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
            <Link to="/conversations" search={open ? { visitor: open.id } : {}} className="btn btn-primary btn-md">
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
                  {name(open)}
                </div>
                <div className="visitor-time">Visited {shortDateTime(open.created_at)}</div>
              </div>
            </div>
            <Details v={open} />
          </div>
        )}
      </Dialog>
    </>
  );
}
