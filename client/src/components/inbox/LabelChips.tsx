import type { LabelDto } from '@parley/shared';
import './inbox.css';

/** A conversation's labels as small coloured chips. */
export function LabelChips({ labels }: { labels: LabelDto[] | undefined }) {
  if (!labels?.length) return null;
  return (
    <span className="label-chips">
      {labels.map((l) => (
        <span key={l.id} className="label-chip" data-label={l.name}>
          <span className="label-dot" style={{ background: l.color }} aria-hidden="true" />
          {l.name}
        </span>
      ))}
    </span>
  );
}
