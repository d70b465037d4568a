import { inject } from 'vitest';
import { mailedLink } from './mail';

/** Small HTTP helpers for arranging data through the real API (the browser does the journeys). */
export const base = () => inject('baseUrl');

export interface Json {
  [k: string]: unknown;
}

export async function apiCall<T = Json>(method: string, url: string, opts: { token?: string; body?: unknown; form?: FormData; headers?: Record<string, string> } = {}): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | FormData | undefined;
  if (opts.form) body = opts.form;
  else if (opts.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(opts.body);
  }
  const res = await fetch(`${base()}${url}`, { method, headers, body });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as T };
}

let seq = 0;
/** A unique email per call, so journeys never collide on the shared server. */
export const uniqueEmail = (tag: string) => `${tag}-${Date.now().toString(36)}-${++seq}@example.com`;

export const PASSWORD = 'Sup3r-Secret!';

export interface Owner {
  token: string;
  email: string;
  name: string;
  password: string;
}

/** An owner account created through POST /api/vms/register. */
export async function registerOwner(name = 'Olivia Owner'): Promise<Owner> {
  const email = uniqueEmail('owner');
  const res = await apiCall<{ token: string }>('POST', '/api/vms/register', { body: { name, email, password: PASSWORD, password_confirmation: PASSWORD } });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`);
  // New owners verify their email through the mailed link (issue 14); payments need it.
  const verified = await fetch(`${base()}${await mailedLink(email, '/api/vms/user/email/verify')}`, { redirect: 'manual' });
  if (!verified.headers.get('location')?.includes('confirmed')) throw new Error(`email verification failed for ${email}`);
  return { token: res.body.token, email, name, password: PASSWORD };
}

export async function login(email: string, password: string): Promise<string> {
  const res = await apiCall<{ token: string }>('POST', '/api/vms/login', { body: { email, password } });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.token;
}

/** The exact snippet the integration page shows, and the widget key inside it. */
export async function integrationSnippet(token: string): Promise<{ script: string; key: string }> {
  const res = await apiCall<{ script: string }>('GET', '/api/vms/integration', { token });
  if (res.status !== 200) throw new Error(`integration failed: ${res.status} ${JSON.stringify(res.body)}`);
  const key = /data-widget="([^"]+)"/.exec(res.body.script)?.[1];
  if (!key) throw new Error(`no widget key in ${res.body.script}`);
  return { script: res.body.script, key };
}

export interface Visitor {
  id: string;
  token: string;
}

/** A visitor created the way the widget does (POST /api/widget/visitors). */
export async function createVisitor(uniqueCode: string, fields: { name?: string; email?: string; time_zone?: string } = {}, ip?: string): Promise<Visitor> {
  // With TRUST_PROXY=1 (set by the global setup) the server takes the visitor's IP from the proxy header.
  const res = await apiCall<{ data: { visitor_id: string; visitor_token: string } }>('POST', '/api/widget/visitors', {
    body: { unique_code: uniqueCode, page_url: 'https://shop.example/pricing', locale: 'en', ...fields },
    headers: ip ? { 'x-forwarded-for': ip } : undefined,
  });
  if (res.status !== 201) throw new Error(`visitor failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.data.visitor_id, token: res.body.data.visitor_token };
}

export interface MessageDto {
  id: number;
  visitor_id: string;
  message: string | null;
  file_path: string | null;
  sender_type: string;
  client_id?: string | null;
}

export async function visitorSays(visitor: Visitor, text: string): Promise<MessageDto> {
  const form = new FormData();
  form.set('message', text);
  const res = await apiCall<{ message: string; data: MessageDto }>('POST', '/api/widget/messages', { token: visitor.token, form });
  if (res.status >= 300 || res.body.message !== 'success') throw new Error(`visitor message failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

export async function visitorHistory(visitor: Visitor): Promise<MessageDto[]> {
  const res = await apiCall<{ data: MessageDto[] }>('GET', '/api/widget/messages', { token: visitor.token });
  if (res.status !== 200) throw new Error(`history failed: ${res.status}`);
  return res.body.data;
}

/** Polls `check` until it returns a truthy value or the time runs out. */
export async function eventually<T>(check: () => Promise<T | undefined | null | false>, what: string, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < end) {
    try {
      const v = await check();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`Timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}

/** How many delivery acks of `kind` ('console' or 'widget') the server has timed (its /metrics, read from this machine). */
export async function deliveryAcks(kind: 'console' | 'widget'): Promise<number> {
  const text = await (await fetch(`${base()}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('parley_message_ack_seconds_count{') && l.includes(`kind="${kind}"`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}
