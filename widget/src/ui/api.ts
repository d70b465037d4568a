import { isImageFile } from './files.js';
import type { HandoverDto, MessageDto } from '@parley/shared';
import type { PublicSettings } from '../types.js';
import { SendError, type Outgoing } from './outbox.js';

export interface Identity {
  visitor_id: string;
  visitor_token: string;
}

/** The widget's REST calls (PRODUCT.md section 4). Errors become SendError with the server's words. */
export function createApi(base: string, key: string, token: () => string | undefined) {
  async function call<T>(method: string, path: string, body?: BodyInit | object, whole = false): Promise<T> {
    const headers: Record<string, string> = {};
    const t = token();
    if (t) headers.authorization = `Bearer ${t}`;
    let payload: BodyInit | undefined;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    let res: Response;
    try {
      res = await fetch(base + path, { method, headers, body: payload });
    } catch {
      throw new SendError('Network error');
    }
    const json = (await res.json().catch(() => ({}))) as { data?: T; message?: string; errors?: Record<string, string[]>; code?: string };
    if (!res.ok) {
      const first = json.errors ? Object.values(json.errors)[0]?.[0] : undefined;
      throw new SendError(first ?? json.message ?? `HTTP ${res.status}`, res.status, Number(res.headers.get('retry-after')) || 0, json.code);
    }
    return (whole ? json : json.data) as T;
  }

  // The key in the query (also of the new-visitor call: the server refuses a key over its budget before reading the body).
  const keyQuery = `unique_code=${encodeURIComponent(key)}`;
  const newVisitorUrl = `/api/widget/visitors?${keyQuery}`;
  return {
    settings: () => call<PublicSettings>('GET', `/api/widget-settings?${keyQuery}`),
    /** A zone this server's Intl does not know (422) must not stop the visitor: created again without it. */
    createVisitor: (extra: { name?: string; email?: string; page_url: string; referrer: string; locale: string; time_zone?: string }) =>
      call<Identity>('POST', newVisitorUrl, { unique_code: key, ...extra }).catch((e: SendError) => {
        if (e.status !== 422 || !extra.time_zone) throw e;
        return call<Identity>('POST', newVisitorUrl, { unique_code: key, ...extra, time_zone: undefined });
      }),
    updateVisitor: (patch: { name?: string; email?: string; page_url?: string; time_zone?: string }) => call<unknown>('PATCH', '/api/widget/visitor', patch),
    /** Everything, or since `cursor` (commit-safe; the last answer's next_cursor), or since an id. */
    messages: (cursor: string | undefined, sinceId: number) =>
      call<{ data: MessageDto[]; next_cursor?: string }>(
        'GET',
        `/api/widget/messages${cursor ? `?cursor=${cursor}` : sinceId ? `?since_id=${sinceId}` : ''}`,
        undefined,
        true,
      ),
    send: (o: Outgoing) => {
      const form = new FormData();
      if (o.message) form.append('message', o.message);
      form.append('client_id', o.client_id);
      // SPEC's image field for images; issue 13's file field for documents (the server sniffs both).
      if (o.image) form.append(isImageFile(o.image) ? 'image' : 'file', o.image, (o.image as File).name || 'file');
      return call<MessageDto>('POST', '/api/widget/messages', form);
    },
    offline: (email: string, message: string) => call<unknown>('POST', '/api/widget/offline', { email, message }),
    /** Issue 17: "Was this helpful?" on an assistant's answer; "Talk to a person". */
    vote: (messageId: number, vote: 'helpful' | 'not_helpful') => call<unknown>('POST', `/api/widget/messages/${messageId}/vote`, { vote }),
    handover: () => call<HandoverDto>('POST', '/api/widget/handover', {}),
  };
}
export type Api = ReturnType<typeof createApi>;
