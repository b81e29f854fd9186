import { defineConfig } from 'drizzle-kit';

/** drizzle-kit: generates SQL migrations from src/core/db/schema.ts into ./drizzle. */
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/core/db/schema.ts',
  out: './drizzle',
});
