import { STARTER_MONTHLY_CHATS, type PlanDto, type UserDto } from '@parley/shared';

/**
 * Where the Enterprise card's 'Contact Sales' goes. A fixed address of the Parley team (not the
 * host name: a self-hosted console would point at its own domain, where nobody sells Enterprise).
 */
export const SALES_EMAIL = 'sales@parley.chat';

/** mailto: with the plan named in the subject, so the message arrives with its context. */
export function contactSalesHref(planName: string): string {
  return `mailto:${SALES_EMAIL}?subject=${encodeURIComponent(`${planName} plan enquiry`)}`;
}

/** A plan without a price (Enterprise) is never paid online: its card leads to sales instead. */
export function isContactSales(plan: Pick<PlanDto, 'price'>): boolean {
  return plan.price === null || plan.price === undefined;
}

export const CHAT_LIMIT_NOTICE = `You've reached the Starter plan's ${STARTER_MONTHLY_CHATS} chats this month. New visitors see the offline form until you upgrade.`;

/** The dashboard banner: for the owner (who can upgrade), once the month's chats are used up. */
export function showsChatLimitNotice(user: UserDto | null): boolean {
  return user?.type === 'owner' && user.plan?.limit_reached === true;
}

/** Removing the widget's credit needs Professional (or its trial) or above; unknown plan: let the server decide. */
export function canRemoveBranding(user: UserDto | null): boolean {
  return user?.plan?.plan !== 'Starter';
}
