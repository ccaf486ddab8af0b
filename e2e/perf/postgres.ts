// Postgres mode: the console on a PostgreSQL server (DATABASE_URL), as production runs.
// The bench never touches an existing database: it creates its own on the server named by
// BENCH_DATABASE_URL (else DATABASE_URL, else TEST_DATABASE_URL) and drops it at the end.
import { randomBytes } from "node:crypto"
import pg from "pg"
import { onCleanup } from "./processes"

/** The server the Postgres-mode rows run on, or null (the rows are then left out). */
export function benchPostgresServer(): string | null {
  return process.env.BENCH_DATABASE_URL || process.env.DATABASE_URL || process.env.TEST_DATABASE_URL || null
}

/** A new, empty database on `serverUrl`, dropped when the benchmark ends; its URL. */
export async function createBenchDatabase(serverUrl: string): Promise<string> {
  const name = `console_bench_${Date.now()}_${randomBytes(3).toString("hex")}`
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  try {
    await admin.query(`CREATE DATABASE "${name}"`)
  } finally {
    await admin.end()
  }
  onCleanup(async () => {
    const dropper = new pg.Client({ connectionString: serverUrl })
    await dropper.connect()
    try {
      await dropper.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
    } finally {
      await dropper.end()
    }
  })
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return url.toString()
}

/** Where the instances' database is created: BENCH_DATABASE_URL, else TEST_DATABASE_URL. */
export function scaleDatabaseServer(): string | undefined {
  return process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined
}
