import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  schema: "./edge/db/schema.ts",
  out: "./migrations",
});
