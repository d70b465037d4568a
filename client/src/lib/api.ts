/**
 * The one API client of the console (CONVENTIONS.md "Client"): adds the bearer token from
 * localStorage 'auth_token', parses the envelope and raises ApiError carrying the server's
 * message / error / errors and the HTTP status. Components never call fetch.
 */
export const TOKEN_KEY = 'auth_token';
export const NO_TOKEN = 'No authentication token found';

export function getToken(): string | null {
  try {
    return localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}
export function setToken(token: string): void {
  localStorage.setItem(TOKEN_KEY, token);
}
export function clearToken(): void {
  try {
    localStorage.removeItem(TOKEN_KEY);
  } catch {
    /* storage unavailable: nothing to clear */
  }
}

export type FieldErrors = Record<string, string[]>;

export class ApiError extends Error {
  /** HTTP status; 0 for a network failure or a missing token. */
  readonly status: number;
  /** The envelope's `error` text, when the server sent one. */
  readonly error?: string;
  /** Field errors of a 422 answer, keyed by field. */
  readonly errors?: FieldErrors;
  /** The parsed body, whatever it was. */
  readonly body: unknown;
  /** Seconds a rate-limited (429) call asks to wait (its Retry-After). */
  readonly retryAfter?: number;

  constructor(message: string, opts: { status: number; error?: string; errors?: FieldErrors; body?: unknown; retryAfter?: number }) {
    super(message);
    this.name = 'ApiError';
    this.status = opts.status;
    this.error = opts.error;
    this.errors = opts.errors;
    this.body = opts.body;
    this.retryAfter = opts.retryAfter;
  }
}

/** The calm words of a 429: when to try again, never an alarm. */
export function rateLimitedText(retryAfter: number | undefined): string {
  if (!retryAfter) return 'Too many requests. Please try again in a moment.';
  if (retryAfter < 60) return `Too many requests. Please try again in ${retryAfter} second${retryAfter === 1 ? '' : 's'}.`;
  const minutes = Math.ceil(retryAfter / 60);
  return `Too many requests. Please try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
}

/** The server's human text of an error (its `error` field, else `message`), or the fallback. */
export function errorText(e: unknown, fallback: string): string {
  if (e instanceof ApiError) return e.error || e.message || fallback;
  return fallback;
}

/** Flattens field errors into one line (SPEC.md section 8: team errors "joined with spaces"). */
export function joinFieldErrors(errors: FieldErrors | undefined): string {
  if (!errors) return '';
  return Object.values(errors)
    .flat()
    .filter((v) => typeof v === 'string' && v.length > 0)
    .join(' ');
}

export interface RequestOptions {
  /** Send the bearer token (default true). With no stored token the call fails with NO_TOKEN. */
  auth?: boolean;
  query?: Record<string, string | number | undefined | null>;
  signal?: AbortSignal;
  /** Message used when the token is missing (the integration page has its own). */
  noTokenMessage?: string;
}

type Body = FormData | object | undefined;

function buildUrl(path: string, query?: RequestOptions['query']): string {
  const url = path.startsWith('/') || /^https?:/.test(path) ? path : `/${path}`;
  if (!query) return url;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) params.set(k, String(v));
  const qs = params.toString();
  return qs ? `${url}${url.includes('?') ? '&' : '?'}${qs}` : url;
}

function asRecord(v: unknown): Record<string, unknown> | null {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

/** Low-level call: returns the parsed JSON body of a 2xx answer (or null for an empty one). */
export async function request<T = unknown>(method: string, path: string, body?: Body, opts: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (opts.auth !== false) {
    const token = getToken();
    if (!token) throw new ApiError(opts.noTokenMessage ?? NO_TOKEN, { status: 0 });
    headers.Authorization = `Bearer ${token}`;
  }
  let payload: BodyInit | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    payload = JSON.stringify(body);
  }

  let res: Response;
  try {
    res = await fetch(buildUrl(path, opts.query), { method, headers, body: payload, signal: opts.signal });
  } catch (e) {
    if (e instanceof DOMException && e.name === 'AbortError') throw e;
    throw new ApiError('Network error. Please check your connection.', { status: 0 });
  }

  const text = await res.text();
  let parsed: unknown = null;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  if (res.ok) return parsed as T;

  const env = asRecord(parsed);
  const errors = asRecord(env?.errors) as FieldErrors | null;
  if (res.status === 429) {
    // Rate limited: say calmly when to try again; what the user typed stays in its form.
    const retryAfter = Number(res.headers.get('Retry-After')) || undefined;
    const text = rateLimitedText(retryAfter);
    throw new ApiError(text, { status: 429, error: text, errors: errors ?? undefined, body: parsed, retryAfter });
  }
  const message = (typeof env?.message === 'string' && env.message) || (typeof env?.error === 'string' && env.error) || res.statusText || `Request failed (${res.status})`;
  const error = typeof env?.error === 'string' ? env.error : undefined;
  throw new ApiError(message, { status: res.status, error, errors: errors ?? undefined, body: parsed });
}

/** Console envelope `{ message: 'success', data }`: returns data, else 'Unexpected response format'. */
export function unwrap<T>(body: unknown): T {
  const env = asRecord(body);
  if (env?.message !== 'success') {
    throw new ApiError('Unexpected response format', { status: 200, body });
  }
  return env.data as T;
}

export const api = {
  get: <T = unknown>(path: string, opts?: RequestOptions) => request<T>('GET', path, undefined, opts),
  post: <T = unknown>(path: string, body?: Body, opts?: RequestOptions) => request<T>('POST', path, body ?? {}, opts),
  put: <T = unknown>(path: string, body?: Body, opts?: RequestOptions) => request<T>('PUT', path, body ?? {}, opts),
  delete: <T = unknown>(path: string, opts?: RequestOptions) => request<T>('DELETE', path, undefined, opts),
  /** GET of a console envelope; returns `data`. */
  getData: async <T>(path: string, opts?: RequestOptions): Promise<T> => unwrap<T>(await request('GET', path, undefined, opts)),
  /** POST of a console envelope; returns `data`. */
  postData: async <T>(path: string, body?: Body, opts?: RequestOptions): Promise<T> =>
    unwrap<T>(await request('POST', path, body ?? {}, opts)),
};

/** Builds a multipart body, skipping undefined/null values; Blob values are appended as files. */
export function formData(fields: Record<string, string | number | boolean | Blob | undefined | null>): FormData {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined || v === null) continue;
    if (v instanceof Blob) fd.append(k, v);
    else fd.append(k, String(v));
  }
  return fd;
}

/** URL of a stored file (SPEC.md: images load from the storage path under the server host). */
export function storageUrl(filePath: string | null | undefined): string {
  if (!filePath) return '';
  if (/^(https?:|blob:|data:)/.test(filePath) || filePath.startsWith('/')) return filePath;
  return `/storage/${filePath}`;
}

/** SPEC.md section 8 pattern "server error field, else <fallback>". */
export function serverError(e: unknown, fallback: string): string {
  return e instanceof ApiError && e.error ? e.error : fallback;
}
