import { Link } from '@tanstack/react-router';
import type { VisitorDto } from '@parley/shared';
import { Icon } from '../icons';
import { Button } from '../ui';
import { avatarStyle, initial, shortDateTime } from '../../lib/format';
import type { VisitorRow } from '../../stores/visitors';

export const visitorName = (v: Pick<VisitorDto, 'name'>) => v.name?.trim() || 'Anonymous';

export function VisitorDetails({ v }: { v: VisitorDto }) {
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

/** One visitor of the grid (SPEC.md /visitors), with its presence and a direct "Start Chat". */
export function VisitorCard({ v, index, onDetails, onStart }: { v: VisitorRow; index: number; onDetails: () => void; onStart: () => void }) {
  return (
    <li className="card visitor-card" data-visitor-id={v.id}>
      <div className="visitor-head">
        <span className={`avatar avatar-md ${avatarStyle(index)}`} aria-hidden="true">
          {initial(v.name)}
        </span>
        <div style={{ minWidth: 0 }}>
          <h2 className="visitor-name" style={{ fontSize: 15.5 }}>
            {visitorName(v)}
            {v.online && <span className="badge" style={{ marginLeft: 8 }}>Online</span>}
          </h2>
          <div className="visitor-time">{shortDateTime(v.created_at)}</div>
        </div>
      </div>
      <VisitorDetails v={v} />
      <div className="row-actions">
        <Button variant="secondary" size="sm" onClick={onDetails} aria-label={`View Details of ${visitorName(v)}`}>
          View Details
        </Button>
        <Link to="/conversations" search={{ visitor: v.id }} className="btn btn-ghost btn-sm" onClick={onStart} aria-label={`Start Chat with ${visitorName(v)}`}>
          <Icon.chat /> Start Chat
        </Link>
      </div>
    </li>
  );
}
