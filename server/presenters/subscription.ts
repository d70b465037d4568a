import type { SubscriptionDto } from '@parley/shared';
import type { subscriptions } from '../db/schema.js';

export function presentSubscription(row: typeof subscriptions.$inferSelect): SubscriptionDto {
  return {
    id: row.id,
    plan_name: row.planName,
    amount: Number(row.amount),
    status: row.status,
    is_active: row.isActive,
    // The console shows 'N/A' for an empty reference (a trial has none).
    payment_reference: row.paymentReference ?? '',
    start_date: row.startDate.toISOString(),
    expiry_date: row.expiryDate.toISOString(),
  };
}
