/**
 * Every table, one file per area under db/tables/. Keep them in step with migrations/*.sql:
 * a change to a table is a new migration file (NNNN_area.sql), never an edit of an applied one.
 */
export * from './tables/core.js';
export * from './tables/ai.js';
export * from './tables/billing.js';
export * from './tables/jobs.js';
export * from './tables/visitorLinks.js';
export * from './tables/auth.js';
export * from './tables/storage.js';
export * from './tables/inbox.js';
export * from './tables/trust.js';
export * from './tables/visitorLists.js';
export * from './tables/visitorSide.js';
export * from './tables/integrations.js';
