// Only the zod-free parts of @parley/shared (limits, event names), so the bundle never carries the schemas.
export * from '../../shared/src/limits.js';
export * from '../../shared/src/events.js';
export * from '../../shared/src/languages.js';
