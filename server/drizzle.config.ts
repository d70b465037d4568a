import { defineConfig } from 'drizzle-kit';

// Only used to generate SQL from db/schema.ts into ../migrations (npx drizzle-kit generate).
export default defineConfig({
  dialect: 'postgresql',
  schema: './db/schema.ts',
  out: '../migrations',
});
