import type { ApiKeyScope } from '@parley/shared';

/**
 * Which console calls an API key may make, by scope: `METHOD /path` as registered (Fastify's
 * route URL). A call not listed here is refused to every key (403): managing the team, billing,
 * settings, profiles, keys and webhooks themselves need a signed-in person. A route added later
 * is closed to keys until it is listed here.
 */
export const ROUTE_SCOPES: Record<string, ApiKeyScope | 'any'> = {
  // Who the key acts as.
  'GET /api/vms/user': 'any',
  'GET /api/vms/conversations': 'conversations:read',
  'GET /api/vms/search': 'conversations:read',
  'GET /api/vms/messages/:visitor_id': 'conversations:read',
  'GET /api/vms/labels': 'conversations:read',
  'GET /api/vms/canned-replies': 'conversations:read',
  'POST /api/vms/messages': 'messages:send',
  'POST /api/vms/conversations/:visitorId/notes': 'messages:send',
  'GET /api/vms/visitor': 'visitors:manage',
  'POST /api/vms/conversations/:visitorId/status': 'visitors:manage',
  'POST /api/vms/conversations/:visitorId/assign': 'visitors:manage',
  'PUT /api/vms/conversations/:visitorId/labels': 'visitors:manage',
  'GET /api/vms/stats': 'stats:read',
  'GET /api/vms/integration-metrics': 'stats:read',
};

/** True when a key holding `scopes` may call the route (method + registered URL). */
export function keyMayCall(scopes: readonly string[], method: string, routeUrl: string | undefined): boolean {
  const scope = routeUrl ? ROUTE_SCOPES[`${method.toUpperCase()} ${routeUrl}`] : undefined;
  if (!scope) return false;
  return scope === 'any' || scopes.includes(scope);
}
