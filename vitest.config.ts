import path from "node:path"
import { defineConfig } from "vitest/config"

export default defineConfig({
  resolve: {
    alias: {
      "@": path.resolve(import.meta.dirname),
      // "server-only" throws outside React Server Components; unit tests run server code directly.
      "server-only": path.resolve(import.meta.dirname, "test/server-only-stub.ts"),
    },
  },
  test: {
    include: ["lib/**/*.test.ts", "app/**/*.test.ts", "components/**/*.test.{ts,tsx}", "test/**/*.test.ts"],
    environment: "node",
    testTimeout: 30_000,
    // A bound for a hang: a fresh database and its migrations, or a console runtime, start slowly on a loaded 2-core machine.
    hookTimeout: 120_000,
    pool: "forks",
    // Two files at a time, whatever the core count (vitest's default is cores - 1: one on a
    // 2-core machine). The DB files spend much of their time waiting on Postgres, timers and
    // child processes; each file has its own database (test/db.ts), so files never share rows.
    maxWorkers: 2,
  },
})
