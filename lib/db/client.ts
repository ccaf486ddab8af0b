import "server-only"
import path from "node:path"
import { PGlite } from "@electric-sql/pglite"
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres"
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator"
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core"
import { drizzle as drizzlePglite } from "drizzle-orm/pglite"
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator"
import pg from "pg"
import * as schema from "@/lib/db/schema"
import { ensurePrivateDir } from "@/lib/private-dir"

export type Schema = typeof schema
/** One type for both drivers: the app is written against Postgres, not a driver. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>

export interface Database {
  db: Db
  driver: "pglite" | "postgres"
  migrate(): Promise<void>
  close(): Promise<void>
}

export const MIGRATIONS_FOLDER = path.join(process.cwd(), "lib", "db", "migrations")

/**
 * Opens a database: node-postgres when `url` is given, else PGlite on `dataDir`
 * (created if missing), or in memory when neither is given.
 */
export async function openDatabase(options: { url?: string | undefined; dataDir?: string | undefined }): Promise<Database> {
  if (options.url) {
    const pool = new pg.Pool({ connectionString: options.url, max: 10, application_name: "treasury-console" })
    // A pooled client that errors while idle must not crash the process.
    pool.on("error", () => undefined)
    const db = drizzlePg(pool, { schema, casing: "snake_case" })
    return {
      db: db as unknown as Db,
      driver: "postgres",
      migrate: () => migrateLocked(pool),
      close: () => pool.end(),
    }
  }
  // The database's folder and files are the server user's alone (0700 and 0600).
  if (options.dataDir) ensurePrivateDir(path.dirname(path.resolve(options.dataDir)))
  const client = await PGlite.create(options.dataDir ? { dataDir: options.dataDir } : {})
  const db = drizzlePglite(client, { schema, casing: "snake_case" })
  return {
    db: db as unknown as Db,
    driver: "pglite",
    migrate: async () => {
      await migratePglite(db, { migrationsFolder: MIGRATIONS_FOLDER })
      // PGlite sets its files' modes itself (0666 and 0644): tightened once its files exist.
      if (options.dataDir) ensurePrivateDir(path.dirname(path.resolve(options.dataDir)))
    },
    close: () => client.close(),
  }
}

/** Any fixed number: the advisory lock that makes instances starting together migrate one at a time. */
const MIGRATION_LOCK = 7_301_245_001

/**
 * drizzle's migrator takes no lock: two instances starting together on an old schema
 * would race on CREATE TABLE. Each waits for the lock, then finds the work done.
 */
async function migrateLocked(pool: pg.Pool): Promise<void> {
  const client = await pool.connect()
  try {
    await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK])
    try {
      await migratePg(drizzlePg(client, { schema, casing: "snake_case" }), { migrationsFolder: MIGRATIONS_FOLDER })
    } finally {
      await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK])
    }
  } finally {
    client.release()
  }
}

const globalForDb = globalThis as unknown as { __consoleDatabase?: Promise<Database> }

/**
 * The process's one database, opened and migrated on first use and kept on globalThis:
 * the dev server reloads modules, and two PGlite instances on one folder corrupt it.
 */
export function getDatabase(config: { url: string | undefined; dataDir: string }): Promise<Database> {
  globalForDb.__consoleDatabase ??= (async () => {
    const database = await openDatabase({
      url: config.url,
      dataDir: config.url ? undefined : path.join(config.dataDir, "pglite"),
    })
    await database.migrate()
    return database
  })()
  globalForDb.__consoleDatabase.catch(() => {
    globalForDb.__consoleDatabase = undefined
  })
  return globalForDb.__consoleDatabase
}
