import type { FastifyInstance, InjectOptions } from 'fastify';
import type { AuthResponse, UserDto } from '@parley/shared';

let seq = 0;
const unique = () => `${Date.now().toString(36)}${(seq++).toString(36)}${Math.random().toString(36).slice(2, 6)}`;

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** app.inject with a token and JSON payload; returns status and parsed body. */
export async function call(
  app: FastifyInstance,
  method: InjectOptions['method'],
  url: string,
  opts: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any; headers: Record<string, unknown> }> {
  const res = await app.inject({
    method,
    url,
    headers: { ...(opts.token ? bearer(opts.token) : {}), ...opts.headers },
    ...(opts.body !== undefined ? { payload: opts.body as InjectOptions['payload'] } : {}),
  });
  let body: unknown = res.body;
  try {
    body = res.json();
  } catch {
    /* not JSON */
  }
  return { status: res.statusCode, body, headers: res.headers };
}

export interface TestOwner {
  token: string;
  user: UserDto;
  email: string;
  password: string;
  widgetKey: string;
}

/** Registers a new business through the real endpoint; returns the owner's session and widget key. */
export async function buildAccount(app: FastifyInstance, overrides: { name?: string; email?: string } = {}): Promise<TestOwner> {
  const email = overrides.email ?? `owner-${unique()}@example.com`;
  const password = 'Sup3r-secret!';
  const res = await call(app, 'POST', '/api/vms/register', {
    body: { name: overrides.name ?? 'Olivia Owner', email, password, password_confirmation: password },
  });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`);
  const body = res.body as AuthResponse;
  const [row] = await app.database.db.query.accounts.findMany({ where: (a, { eq }) => eq(a.id, body.user.account_id) });
  return { token: body.token, user: body.user, email, password, widgetKey: row!.widgetKey };
}
