import { useEffect, useRef } from 'react';
// The widget's own view module (no network or socket code, no translation table), so the
// preview is exactly the UI visitors get.
import { renderPreview } from '../../../../widget/src/ui/render';

export interface WidgetPreviewProps {
  name: string;
  title: string;
  color: string;
  avatarUrl: string;
  initialGreeting: string;
  followUpGreeting: string;
}

type Preview = ReturnType<typeof renderPreview>;

/**
 * Live widget preview of the onboarding wizard (SPEC.md section 2): 380 x 650 px, 24 px from the
 * right and 100 px from the bottom, shown on medium and larger screens. The widget's preview mode
 * supplies the fallback texts, the disabled input and the close control that does nothing.
 */
export function WidgetPreview({ name, title, color, avatarUrl, initialGreeting, followUpGreeting }: WidgetPreviewProps) {
  const host = useRef<HTMLDivElement>(null);
  const preview = useRef<Preview | null>(null);

  // Renders on the first run, then updates in place on every change.
  useEffect(() => {
    const settings = {
      name,
      title,
      color,
      avatar_url: avatarUrl,
      initial_greeting: initialGreeting,
      follow_up_greeting: followUpGreeting,
      agent_online: true,
      powered_by: 'Powered by Parley',
    };
    if (preview.current) preview.current.update(settings);
    else if (host.current) preview.current = renderPreview(host.current, settings);
  }, [name, title, color, avatarUrl, initialGreeting, followUpGreeting]);

  useEffect(
    () => () => {
      preview.current?.destroy();
      preview.current = null;
    },
    [],
  );

  return (
    <aside className="wp" aria-label="Widget preview">
      <div className="wp-host" ref={host} />
    </aside>
  );
}
