/**
 * The satisfaction survey (issue 13), loaded only when a rating may be due: "How was this
 * conversation?" with 1-5 and an optional comment, once per stretch. The server decides whether
 * it is due (GET /api/widget/rating) and refuses a second rating; the stretch asked about is also
 * kept in localStorage so a visitor who skipped it is not asked again on the next page.
 */
import type { RatingStateDto } from '@parley/shared';
import type { h as H } from './dom.js';
import type { Texts } from './i18n.js';
import { type Caller, visitorCall } from './visitorCall.js';

export interface RatingHost extends Caller {
  key: string;
  /** The UI's element helper, handed over so this chunk shares no code with the UI chunk. */
  h: typeof H;
  texts: Texts;
  root: ShadowRoot;
  /** Puts the survey in the panel (above the composer), or clears it with null. */
  show(el: HTMLElement | null): void;
}

const CSS =
  '.rt{margin:8px 12px;padding:12px;border:1px solid #e5e7eb;border-radius:12px;background:#fff;font-size:14px}' +
  '.rt p{margin:0 0 8px;font-weight:600}.rt .sc{display:flex;gap:6px;margin-bottom:8px}' +
  '.rt .sc button{flex:1;min-height:36px;border:1px solid #d1d5db;border-radius:8px;background:#fff;cursor:pointer;font:inherit}' +
  '.rt .sc button[aria-pressed=true]{background:var(--c);color:var(--f);border-color:var(--c)}' +
  '.rt textarea{width:100%;box-sizing:border-box;border:1px solid #d1d5db;border-radius:8px;padding:6px;font:inherit;resize:vertical}' +
  '.rt .ac{display:flex;gap:8px;justify-content:flex-end;margin-top:8px}.rt .ac button{border:0;border-radius:8px;padding:6px 12px;cursor:pointer;font:inherit}' +
  '.rt .ok{background:var(--c);color:var(--f)}.rt .ok:disabled{opacity:.5}.rt .no{background:none;color:#374151}.rt .er{color:#b91c1c;margin:6px 0 0}';

const memoryKey = (key: string) => `parley:${key}:rated`;

function asked(key: string): string | null {
  try {
    return localStorage.getItem(memoryKey(key));
  } catch {
    return null;
  }
}

function remember(key: string, stretch: string): void {
  try {
    localStorage.setItem(memoryKey(key), stretch);
  } catch {
    // Private modes: the server's once-per-stretch rule still holds.
  }
}

let open: string | null = null;

/** Asks the server whether a rating is due and, if so and not asked on this stretch yet, shows the survey. */
export async function askRating(host: RatingHost, stretchHint?: string): Promise<void> {
  if (stretchHint && (asked(host.key) === stretchHint || open === stretchHint)) return;
  const state = await visitorCall<RatingStateDto>(host, 'GET', '/api/widget/rating');
  const stretch = state.stretch;
  if (!state.due || !stretch || asked(host.key) === stretch || open === stretch) return;
  open = stretch;
  host.show(survey(host, stretch));
}

function survey(host: RatingHost, stretch: string): HTMLElement {
  const { texts: t, h } = host;
  if (!host.root.querySelector('style[data-rt]')) host.root.append(h('style', { 'data-rt': '' }, CSS));
  let score = 0;
  const send = h('button', { type: 'submit', class: 'ok', disabled: true }, t.send);
  const buttons = [1, 2, 3, 4, 5].map((n) => {
    const b = h('button', { type: 'button', 'aria-pressed': 'false', 'aria-label': `${n} / 5` }, String(n));
    b.onclick = () => {
      score = n;
      for (const x of buttons) x.setAttribute('aria-pressed', String(x === b));
      send.disabled = false;
    };
    return b;
  });
  const question = h('p', { id: 'parley-rate-q' }, t.rate);
  const comment = h('textarea', { rows: '2', maxlength: '1000', 'aria-label': t.comment, placeholder: t.comment });
  const error = h('p', { class: 'er', role: 'alert' });
  const skip = h('button', { type: 'button', class: 'no' }, t.notNow);
  const form = h('form', { class: 'rt', 'aria-labelledby': 'parley-rate-q' }, question, h('div', { class: 'sc', role: 'group', 'aria-labelledby': 'parley-rate-q' }, ...buttons), comment, h('div', { class: 'ac' }, skip, send), error);
  const done = () => {
    remember(host.key, stretch);
    open = null;
  };
  skip.onclick = () => {
    done();
    host.show(null);
  };
  form.onsubmit = (e) => {
    e.preventDefault();
    if (!score) return;
    send.disabled = true;
    visitorCall(host, 'POST', '/api/widget/rating', { score, comment: comment.value.trim() }).then(
      () => {
        done();
        const thanks = h('p', { class: 'rt', role: 'status' }, t.rated);
        host.show(thanks);
        setTimeout(() => thanks.isConnected && host.show(null), 5000);
      },
      (err: Error & { status?: number }) => {
        // Already rated (another tab) or turned off meanwhile: nothing more to ask.
        if (err.status === 409 || err.status === 403) {
          done();
          host.show(null);
          return;
        }
        send.disabled = false;
        (host.say ? host.say(err) : Promise.resolve(err.message)).then((words) => (error.textContent = words));
      },
    );
  };
  return form;
}
