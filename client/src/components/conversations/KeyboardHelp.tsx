import { Dialog } from '../ui';
import { SHORTCUTS } from './shortcuts';

/** The `?` dialog: every shortcut of the message center. */
export function KeyboardHelp({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Dialog open={open} title="Keyboard shortcuts" onClose={onClose} size="sm" description="They work when you are not typing in a field.">
      <dl className="kbd-list">
        {SHORTCUTS.map((s) => (
          <div key={s.action} style={{ display: 'contents' }}>
            <dt>
              {s.keys.map((k, i) => (
                <span key={k}>
                  {i > 0 && ' or '}
                  <kbd>{k}</kbd>
                </span>
              ))}
            </dt>
            <dd style={{ margin: 0 }}>{s.label}</dd>
          </div>
        ))}
      </dl>
    </Dialog>
  );
}
