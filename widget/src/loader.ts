/**
 * The loader a business pastes into its site:
 *   <script src="https://HOST/widget.js" data-widget="KEY" async></script>
 * It must never block or throw into the host page. It queues `Parley(...)` calls until the chat
 * UI is ready and reports its load for the integration metrics. The chat UI itself arrives with
 * the live-chat issue.
 */
type Command = [string, ...unknown[]];
interface ParleyFn {
  (...args: Command): void;
  q?: Command[];
}

declare global {
  interface Window {
    Parley?: ParleyFn;
  }
}

(() => {
  try {
    const script = document.currentScript as HTMLScriptElement | null;
    const key = script?.dataset.widget;
    if (!script || !key) return;
    const base = new URL(script.src).origin;
    const existing = window.Parley;
    const queue: Command[] = existing?.q ?? [];
    const parley: ParleyFn = (...args: Command) => {
      queue.push(args);
    };
    parley.q = queue;
    window.Parley = parley;
    const loadId = Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, '0')).join('');
    const body = JSON.stringify({ unique_code: key, load_id: loadId, kind: 'load' });
    const url = `${base}/api/widget/events`;
    void fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json' }, keepalive: true }).catch(() => {});
  } catch {
    // Never throw into the host page.
  }
})();

export {};
