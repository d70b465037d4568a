import { MORE_SWATCHES, PRIMARY_SWATCHES, gradientOf } from './palette';

export interface WidgetPreviewProps {
  name: string;
  title: string;
  color: string;
  avatarUrl: string;
  initialGreeting: string;
  followUpGreeting: string;
}

function headerBackground(color: string): string {
  const swatch = [...PRIMARY_SWATCHES, ...MORE_SWATCHES].find((s) => s.hex.toLowerCase() === color.toLowerCase());
  return swatch ? gradientOf(swatch) : color;
}

/**
 * Live widget preview of the onboarding wizard (SPEC.md section 2): 380 x 650 px, 24 px from the
 * right and 100 px from the bottom, shown on medium and larger screens. Purely visual: the
 * input is disabled and the close control does nothing.
 */
export function WidgetPreview({ name, title, color, avatarUrl, initialGreeting, followUpGreeting }: WidgetPreviewProps) {
  const shownName = name.trim();
  const shownTitle = title.trim() || "We're here to help";
  const background = headerBackground(color);
  return (
    <aside className="wp" aria-label="Widget preview">
      <div className="wp-header" style={{ background }}>
        <div className="wp-avatar" aria-hidden="true">
          {avatarUrl ? <img src={avatarUrl} alt="" /> : <span>{shownName ? shownName.charAt(0).toUpperCase() : '👋'}</span>}
        </div>
        <div className="wp-head-text">
          <strong className="wp-name">{shownName || 'Hi there! 👋'}</strong>
          <span className="wp-title">{shownTitle}</span>
          <span className="wp-replies">
            <span className="wp-online" aria-hidden="true" /> Typically replies in minutes
          </span>
        </div>
        <button type="button" className="wp-close" aria-label="Close chat preview" onClick={() => undefined}>
          ×
        </button>
      </div>
      <div className="wp-body">
        <div className="wp-row">
          <div className="wp-mini" style={{ background }} aria-hidden="true" />
          <p className="wp-msg">{initialGreeting.trim() || 'Hello!'}</p>
        </div>
        <div className="wp-row">
          <div className="wp-mini" style={{ background }} aria-hidden="true" />
          <p className="wp-msg">{followUpGreeting.trim() || 'How can we assist?'}</p>
        </div>
      </div>
      <div className="wp-compose">
        <input type="text" disabled placeholder="Type your message..." aria-label="Message (preview)" />
        <span className="wp-send" style={{ background }} aria-hidden="true">
          ➤
        </span>
      </div>
      <p className="wp-powered">Powered by Parley</p>
    </aside>
  );
}
