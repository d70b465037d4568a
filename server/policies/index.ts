import { forbidden } from '../errors.js';
import { type Actor, isAccountAdmin, isOwner } from './actor.js';

/**
 * PRODUCT.md section 2, one small rule per action. Routes call `authorize(actor, 'rule')`;
 * row-level scoping (account, assignment) lives in the queries (see policies/conversations.ts).
 */
export const rules = {
  'team.manage': isOwner,
  'billing.manage': isOwner,
  'account.delete': isOwner,
  'settings.read': () => true,
  'settings.write': isAccountAdmin,
  'conversations.readAll': isAccountAdmin,
  /** Assign a conversation to anyone; an Agent may only claim unassigned ones or hand back their own. */
  'conversations.assignAny': isAccountAdmin,
  'images.attach': (a: Actor) => a.status !== 'disabled',
  'profile.write': () => true,
  /** Teach the assistant, review what it learned, confirm feedback, auto-answer settings. */
  'ai.manage': isAccountAdmin,
  /** Create, edit and delete canned replies and labels (everyone reads and uses them). */
  'inbox.manage': isAccountAdmin,
  /** Issue 14: the audit log, requiring 2FA for the team, signing a member out everywhere (owner only). */
  'audit.read': isOwner,
  'security.manage': isOwner,
  /** Issue 14: export or erase one visitor's data, the retention setting (owner/Admin). */
  'visitors.gdpr': isAccountAdmin,
  /** API keys and webhooks (issue 14). */
  'integrations.manage': isAccountAdmin,
} satisfies Record<string, (a: Actor) => boolean>;

export type Rule = keyof typeof rules;

export const can = (actor: Actor, rule: Rule): boolean => rules[rule](actor);

export function authorize(actor: Actor, rule: Rule): void {
  if (!can(actor, rule)) throw forbidden();
}

export type { Actor } from './actor.js';
