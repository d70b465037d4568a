import { useEffect, useState } from 'react';
import { SearchBox } from '../layout/PageHeader';
import { useVisitors } from '../../stores/visitors';

/** Search (name or email) and filters of the Visitors page; the search waits for a short pause in typing. */
export function VisitorFilters() {
  const filters = useVisitors((s) => s.filters);
  const setFilters = useVisitors((s) => s.setFilters);
  const countries = useVisitors((s) => s.countryChoices);
  const [q, setQ] = useState(filters.q);

  useEffect(() => {
    if (q === useVisitors.getState().filters.q) return;
    const timer = setTimeout(() => setFilters({ q }), 300);
    return () => clearTimeout(timer);
  }, [q, setFilters]);

  return (
    <search aria-label="Filter visitors" style={{ display: 'flex', flexWrap: 'wrap', gap: 12, alignItems: 'center', marginBottom: 16 }}>
      <SearchBox placeholder="Search by name or email..." label="Search visitors by name or email" value={q} onChange={setQ} />
      <select className="input select" style={{ width: 'auto' }} aria-label="Presence" value={filters.online} onChange={(e) => setFilters({ online: e.target.value as '' | 'true' | 'false' })}>
        <option value="">Online and offline</option>
        <option value="true">Online now</option>
        <option value="false">Offline</option>
      </select>
      <select className="input select" style={{ width: 'auto' }} aria-label="Country" value={filters.country} onChange={(e) => setFilters({ country: e.target.value })}>
        <option value="">All countries</option>
        {countries.map((c) => (
          <option key={c.country} value={c.country}>
            {c.country} ({c.count})
          </option>
        ))}
      </select>
      <select
        className="input select"
        style={{ width: 'auto' }}
        aria-label="Conversation"
        value={filters.has_conversation}
        onChange={(e) => setFilters({ has_conversation: e.target.value as '' | 'true' | 'false' })}
      >
        <option value="">With or without a conversation</option>
        <option value="true">Has a conversation</option>
        <option value="false">No conversation yet</option>
      </select>
    </search>
  );
}
