import type { PlanDto } from '@parley/shared';
import type { plans } from '../db/schema.js';

export function presentPlan(row: typeof plans.$inferSelect): PlanDto {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    // null means a custom price ("Contact sales"); numeric may arrive as text on some drivers.
    price: row.price === null ? null : Number(row.price),
    features: row.features,
  };
}
