/** The visitor's own identity, in the host page's localStorage under a key per widget. */
export interface Stored {
  visitor_id: string;
  visitor_token: string;
  name?: string;
  email?: string;
  /** The last message id the visitor has seen, for the unread badge across page loads. */
  seen?: number;
}

// localStorage throws in sandboxed iframes and some privacy modes: the widget then lives per page.
export function load(key: string): Stored | undefined {
  try {
    const raw = localStorage.getItem(`parley:${key}`);
    const v = raw ? (JSON.parse(raw) as Stored) : undefined;
    return v && typeof v.visitor_token === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

export function save(key: string, value: Stored | undefined): void {
  try {
    if (value) localStorage.setItem(`parley:${key}`, JSON.stringify(value));
    else localStorage.removeItem(`parley:${key}`);
  } catch {
    // see load()
  }
}
