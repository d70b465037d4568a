/**
 * The launcher bubble's styles: shown by the loader before the UI chunk arrives, and reused by
 * the UI and the console preview so the bubble never changes look when the UI takes over.
 */
export const LAUNCHER_CSS =
  ':host{all:initial}' +
  '.l{position:fixed;right:20px;bottom:20px;z-index:2147483000;width:56px;height:56px;border:0;border-radius:50%;padding:0;' +
  'cursor:pointer;color:#fff;box-shadow:0 4px 14px rgba(0,0,0,.25);display:flex;align-items:center;justify-content:center;transition:transform .15s}' +
  '.l:hover{transform:scale(1.06)}.l:focus-visible{outline:3px solid #1a73e8;outline-offset:3px}.l svg{width:28px;height:28px;fill:currentColor}' +
  // Right-to-left languages (the loader sets the host's dir): the launcher and the panel on the left.
  // (phones keep the full-screen panel).
  ':host([dir=rtl]) .l{right:auto;left:20px}@media (min-width:481px){:host([dir=rtl]) .w:not(.pv) .p{right:auto;left:20px}}';

/** A speech bubble (open) icon. */
export const CHAT_PATH = 'M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H8l-4 4V6a2 2 0 0 1 2-2z';
export const CHAT_ICON = `<svg viewBox="0 0 24 24" aria-hidden="true"><path d="${CHAT_PATH}"/></svg>`;
