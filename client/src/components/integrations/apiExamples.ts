/**
 * The curl examples of Documentation > API. The browser journey e2e/tests/apiDocs.test.ts runs
 * each of them (with a real host, key and visitor id) and checks the status it promises, so
 * what the page shows keeps working.
 */
export interface CurlExample {
  title: string;
  scope: string;
  /** The status the call answers. */
  status: number;
  command: string;
}

export const HOST = 'https://your-parley-host';

export const CURL_EXAMPLES: CurlExample[] = [
  {
    title: 'List conversations',
    scope: 'conversations:read',
    status: 200,
    command: `curl -s ${HOST}/api/vms/conversations \\
  -H "Authorization: Bearer YOUR_API_KEY"`,
  },
  {
    title: 'Read one conversation',
    scope: 'conversations:read',
    status: 200,
    command: `curl -s ${HOST}/api/vms/messages/VISITOR_ID \\
  -H "Authorization: Bearer YOUR_API_KEY"`,
  },
  {
    title: 'Reply to a visitor',
    scope: 'messages:send',
    status: 201,
    command: `curl -s -X POST ${HOST}/api/vms/messages \\
  -H "Authorization: Bearer YOUR_API_KEY" \\
  -H "Content-Type: application/json" \\
  -d '{"visitor_id":"VISITOR_ID","message":"Thanks, we are on it"}'`,
  },
  {
    title: 'Resolve a conversation',
    scope: 'visitors:manage',
    status: 200,
    command: `curl -s -X POST ${HOST}/api/vms/conversations/VISITOR_ID/status \\
  -H "Authorization: Bearer YOUR_API_KEY" \\
  -H "Content-Type: application/json" \\
  -d '{"status":"resolved"}'`,
  },
  {
    title: 'Read the stats',
    scope: 'stats:read',
    status: 200,
    command: `curl -s ${HOST}/api/vms/stats \\
  -H "Authorization: Bearer YOUR_API_KEY"`,
  },
];

export const VERIFY_EXAMPLE = `import { createHmac, timingSafeEqual } from 'node:crypto';

// rawBody: the request body exactly as received (a string), before any JSON parsing.
export function isFromParley(secret, rawBody, headers) {
  const timestamp = headers['parley-webhook-timestamp'];
  const given = headers['parley-webhook-signature'] ?? '';
  // Refuse old deliveries (replays): 5 minutes of clock difference at most.
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const expected = 'v1=' + createHmac('sha256', secret).update(timestamp + '.' + rawBody).digest('hex');
  return given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}`;

export const DELIVERY_SAMPLE = `POST /your/endpoint
Content-Type: application/json
Parley-Webhook-Id: 6f1c…            (the event id: the same on retries and resends)
Parley-Webhook-Timestamp: 1795000000
Parley-Webhook-Signature: v1=5d2a…
Parley-Webhook-Event: message.created

{"id":"6f1c…","type":"message.created","created_at":"2026-11-24T09:00:00.000Z",
 "account_id":"…","data":{"message":{…},"conversation":{…}}}`;
