import { useEffect, useRef, useState } from 'react';
import { Button } from '../ui';

const COPIED_MS = 2000;

/** Legacy copy for browsers without the async clipboard (or without permission). */
function legacyCopy(text: string): boolean {
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.className = 'int-offscreen';
  document.body.appendChild(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  document.body.removeChild(area);
  return ok;
}

/** 'Copy Script': 'Copied Successfully!' for 2 s; disabled while loading or with no script. */
export function CopyScriptButton({ script, loading }: { script: string; loading: boolean }) {
  const [copied, setCopied] = useState(false);
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);

  const copy = async () => {
    let ok = false;
    try {
      if (navigator.clipboard && window.isSecureContext) {
        await navigator.clipboard.writeText(script);
        ok = true;
      }
    } catch {
      ok = false;
    }
    if (!ok) ok = legacyCopy(script);
    if (!ok) return;
    setCopied(true);
    window.clearTimeout(timer.current);
    timer.current = window.setTimeout(() => setCopied(false), COPIED_MS);
  };

  return (
    <Button variant="primary" onClick={copy} disabled={loading || !script} aria-live="polite">
      {copied ? 'Copied Successfully!' : 'Copy Script'}
    </Button>
  );
}
