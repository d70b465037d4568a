import { useEffect } from 'react';
import { useInbox } from '../../stores/inbox';

/** The message center's label filter: all conversations, or those with one label. */
export function LabelFilter() {
  const labels = useInbox((s) => s.labels);
  const value = useInbox((s) => s.labelFilter);
  useEffect(() => {
    void useInbox.getState().load();
  }, []);
  if (labels.length === 0 && value === null) return null;
  return (
    <select className="input label-filter" aria-label="Filter by label" value={value ?? ''} onChange={(e) => useInbox.getState().setLabelFilter(e.target.value ? Number(e.target.value) : null)}>
      <option value="">All labels</option>
      {labels.map((l) => (
        <option key={l.id} value={l.id}>
          {l.name}
        </option>
      ))}
    </select>
  );
}
