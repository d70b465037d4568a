/**
 * One small JSON call with the visitor's token, for the lazily loaded features (rating,
 * transcript, proactive): they share it, so esbuild puts it in a chunk of its own and the
 * UI chunk stays as it was (nothing here may be imported by the UI chunk itself). Errors carry the server's words (the envelope's first field error).
 */
/** An Error with the HTTP status (0: network). A plain function, not a class: no helper shared with the UI chunk. */
export function callError(message: string, status = 0, code?: string): Error & { status: number; code?: string } {
  return Object.assign(new Error(message), { status, code });
}

export interface Caller {
  base: string;
  token(): string | undefined;
  /** The visitor's words for a refusal (the UI's i18n.refusalText, in their language). */
  say?(err: Error): Promise<string>;
}

export async function visitorCall<T>(c: Caller, method: string, path: string, body?: object): Promise<T> {
  const headers: Record<string, string> = {};
  const token = c.token();
  if (token) headers.authorization = `Bearer ${token}`;
  if (body) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(c.base + path, { method, headers, body: body ? JSON.stringify(body) : undefined });
  } catch {
    throw callError('Network error');
  }
  const json = (await res.json().catch(() => ({}))) as { data?: T; message?: string; errors?: Record<string, string[]>; code?: string };
  if (!res.ok) {
    const first = json.errors ? Object.values(json.errors)[0]?.[0] : undefined;
    throw callError(first ?? json.message ?? `HTTP ${res.status}`, res.status, json.code);
  }
  return json.data as T;
}
