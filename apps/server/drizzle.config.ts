import { defineConfig } from 'drizzle-kit';

/** drizzle-kit: generates SQL migrations from src/db/schema.ts into ./drizzle. */
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema.ts',
  out: './drizzle',
});
