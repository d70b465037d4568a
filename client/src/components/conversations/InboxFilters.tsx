import { ASSIGNEE_FILTERS, INBOX_STATUSES, type InboxCounts, type InboxFilter, type InboxSort } from '../../stores/conversationLogic';

export interface InboxFiltersProps {
  filter: InboxFilter;
  counts: InboxCounts | null;
  onFilter: (f: Partial<InboxFilter>) => void;
}

const ASSIGNEE_LABEL = { mine: 'Mine', unassigned: 'Unassigned', all: 'All' } as const;
const STATUS_LABEL = { open: 'Open', pending: 'Pending', resolved: 'Resolved' } as const;
const SORT_LABEL: Record<InboxSort, string> = { newest: 'Newest', oldest: 'Oldest', waiting: 'Waiting longest' };

/**
 * Mine / Unassigned / All x Open / Pending / Resolved with live counts (each assignee tab counts
 * the chosen status; each status tab counts the chosen assignee), and the sort.
 */
export function InboxFilters({ filter, counts, onFilter }: InboxFiltersProps) {
  const count = (n: number | undefined) => (counts && n !== undefined ? <span className="inbox-count">{n}</span> : null);
  return (
    <div className="inbox-filters">
      <fieldset className="segmented inbox-seg">
        <legend className="sr-only">Assignee</legend>
        {ASSIGNEE_FILTERS.map((a) => (
          <button key={a} type="button" aria-pressed={filter.assignee === a} onClick={() => onFilter({ assignee: a })}>
            {ASSIGNEE_LABEL[a]} {count(counts?.[a][filter.status])}
          </button>
        ))}
      </fieldset>
      <div className="inbox-row">
        <fieldset className="segmented inbox-seg">
          <legend className="sr-only">Status</legend>
          {INBOX_STATUSES.map((s) => (
            <button key={s} type="button" aria-pressed={filter.status === s} onClick={() => onFilter({ status: s })}>
              {STATUS_LABEL[s]} {count(counts?.[filter.assignee][s])}
            </button>
          ))}
        </fieldset>
        <label className="inbox-sort">
          <span className="sr-only">Sort</span>
          <select className="input input-sm" aria-label="Sort" value={filter.sort} onChange={(e) => onFilter({ sort: e.target.value as InboxSort })}>
            {(Object.keys(SORT_LABEL) as InboxSort[]).map((k) => (
              <option key={k} value={k}>
                {SORT_LABEL[k]}
              </option>
            ))}
          </select>
        </label>
      </div>
    </div>
  );
}
