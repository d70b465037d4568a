import type { UserDto } from '@parley/shared';
import type { Actor } from '../policies/actor.js';
import { can, type Rule, rules } from '../policies/index.js';

export function presentUser(a: Actor): UserDto {
  return {
    id: a.id,
    name: a.name,
    email: a.email,
    is_admin: a.isAdmin,
    status: a.status,
    type: a.type,
    role: a.roleName,
    account_id: a.accountId,
    created_at: a.createdAt.toISOString(),
    permissions: (Object.keys(rules) as Rule[]).filter((r) => can(a, r)),
  };
}
