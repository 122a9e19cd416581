import { defineConfig } from "drizzle-kit";

/** The PostgreSQL migrations: `bunx drizzle-kit generate --config drizzle.pg.config.ts --name <what>`. */
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/store/schema.pg.ts",
  out: "./drizzle-pg",
});
