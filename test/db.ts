import { randomBytes } from "node:crypto"
import pg from "pg"
import { type Database, openDatabase } from "@/lib/db/client"
import { type DatabaseLimits, testDatabaseUrl } from "@/lib/env"

export type TestDriver = "pglite" | "postgres"

/** The drivers DB tests run against: PGlite in memory always, Postgres when TEST_DATABASE_URL is set. */
export function testDrivers(): TestDriver[] {
  return testDatabaseUrl() ? ["pglite", "postgres"] : ["pglite"]
}

/**
 * A fresh, migrated database for one test file. On Postgres each call creates its own
 * database (dropped again by `close`), so runs never see each other's rows.
 */
export async function createTestDatabase(driver: TestDriver, limits?: DatabaseLimits): Promise<Database> {
  if (driver === "pglite") {
    const database = await openDatabase({})
    await database.migrate()
    return database
  }
  const empty = await createEmptyPostgresDatabase()
  const database = await openDatabase({ url: empty.url, limits })
  await database.migrate()
  return {
    ...database,
    close: async () => {
      await database.close()
      await empty.drop()
    },
  }
}

/** A new, empty database on the TEST_DATABASE_URL server, and how to drop it. */
export async function createEmptyPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const serverUrl = testDatabaseUrl()
  if (!serverUrl) throw new Error("TEST_DATABASE_URL is not set")
  const name = `console_test_${Date.now()}_${randomBytes(4).toString("hex")}`
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  try {
    await admin.query(`CREATE DATABASE "${name}"`)
  } finally {
    await admin.end()
  }
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: async () => {
      const dropper = new pg.Client({ connectionString: serverUrl })
      await dropper.connect()
      try {
        await dropper.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
      } finally {
        await dropper.end()
      }
    },
  }
}
