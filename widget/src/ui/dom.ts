/** Small DOM helpers: text always goes in as text (never HTML), so messages cannot inject markup. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | boolean | undefined> = {},
  ...children: (Node | string | false | undefined)[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === true) el.setAttribute(k, '');
    else if (typeof v === 'string') el.setAttribute(k, v);
  }
  for (const c of children) if (c) el.append(c);
  return el;
}

/** An inline SVG icon from a path (static markup of ours, no user data). */
export function icon(path: string): SVGSVGElement {
  const wrap = document.createElement('span');
  wrap.innerHTML = `<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d="${path}"/></svg>`;
  return wrap.firstChild as SVGSVGElement;
}

export const ICONS = {
  close: 'M18.3 5.7 12 12l6.3 6.3-1.4 1.4L10.6 13.4 4.3 19.7 2.9 18.3 9.2 12 2.9 5.7 4.3 4.3l6.3 6.3 6.3-6.3z',
  send: 'M2 21 23 12 2 3v7l15 2-15 2z',
  attach:
    'M16.5 6v11.5a4 4 0 0 1-8 0V5a2.5 2.5 0 0 1 5 0v10.5a1 1 0 0 1-2 0V6H10v9.5a2.5 2.5 0 0 0 5 0V5a4 4 0 0 0-8 0v12.5a5.5 5.5 0 0 0 11 0V6z',
  down: 'M7.4 8.6 12 13.2l4.6-4.6L18 10l-6 6-6-6z',
};

/** Text with http(s) links made clickable; everything else stays plain text. */
export function linkify(text: string): (Node | string)[] {
  return text.split(/(https?:\/\/[^\s<>"]+)/g).map((part, i) =>
    i % 2 ? h('a', { href: part, target: '_blank', rel: 'noopener noreferrer nofollow' }, part) : part,
  );
}

/**
 * Black or white, whichever contrasts more with the account's colour (WCAG relative luminance), so
 * text on it (header, the visitor's bubbles) always reaches at least 4.5:1, WCAG AA.
 */
export function textOn(color: string): string {
  const m = /^#?([0-9a-f]{6})$/i.exec(color.trim());
  if (!m?.[1]) return '#fff';
  const n = Number.parseInt(m[1], 16);
  const lin = (c: number) => (c / 255 <= 0.04045 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4);
  const l = 0.2126 * lin(n >> 16) + 0.7152 * lin((n >> 8) & 255) + 0.0722 * lin(n & 255);
  return (l + 0.05) / 0.05 > 1.05 / (l + 0.05) ? '#000' : '#fff';
}

/** Absolute URL for a path the server gave relative to its own origin. */
export function absolute(base: string, url: string): string {
  if (!url || /^(https?:|data:|blob:)/.test(url)) return url;
  return base + (url.startsWith('/') ? '' : '/storage/') + url;
}
