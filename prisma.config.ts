import { defineConfig } from 'prisma/config';

// The Prisma CLI's view of the payments database. The URL falls back to the local default so that
// `prisma generate`, which never connects, works without any environment.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/appcat' },
});
