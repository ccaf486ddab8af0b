import "server-only"
import { execFile } from "node:child_process"
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync } from "node:fs"
import path from "node:path"
import { PGlite } from "@electric-sql/pglite"
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres"
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator"
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core"
import { drizzle as drizzlePglite } from "drizzle-orm/pglite"
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator"
import pg from "pg"
import { DatabaseDeadlineError, databaseTimeLeft } from "@/lib/db/deadline"
import * as schema from "@/lib/db/schema"
import type { DatabaseLimits } from "@/lib/env"
import { log } from "@/lib/log"
import { ensurePrivateDir } from "@/lib/private-dir"

export type Schema = typeof schema
/** One type for both drivers: the app is written against Postgres, not a driver. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>

export interface Database {
  db: Db
  driver: "pglite" | "postgres"
  migrate(): Promise<void>
  close(): Promise<void>
  /**
   * Calls `onNotify` for each NOTIFY on `channel` (payload text) until the answered stop is
   * called. Postgres: one connection of its own per listen, outside the pool, reconnected
   * after a loss (`onLost` is told, so its caller can catch up on what it missed); PGlite:
   * in-process, this instance's own notifications.
   */
  listen(channel: string, onNotify: (payload: string) => void, onLost?: () => void): Promise<() => Promise<void>>
}

const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/

/** LISTEN on a connection of its own, reconnected a second after a loss, until stopped. */
async function listenPostgres(url: string, channel: string, onNotify: (payload: string) => void, onLost?: () => void): Promise<() => Promise<void>> {
  if (!CHANNEL.test(channel)) throw new Error("a channel is a lower-case identifier")
  let stopped = false
  let client: pg.Client | null = null
  let retry: ReturnType<typeof setTimeout> | null = null
  async function connect(): Promise<void> {
    const c = new pg.Client({ connectionString: url, application_name: "treasury-console-listen" })
    c.on("notification", (message) => {
      if (message.channel === channel) onNotify(message.payload ?? "")
    })
    c.on("error", () => lost(c))
    c.on("end", () => lost(c))
    client = c
    await c.connect()
    await c.query(`LISTEN ${channel}`)
    if (stopped) await c.end().catch(() => undefined)
  }
  function lost(c: pg.Client): void {
    if (client !== c || stopped) return
    client = null
    c.end().catch(() => undefined)
    log.warn("db.listen_lost", { channel })
    onLost?.()
    retry ??= setTimeout(() => {
      retry = null
      if (!stopped) connect().catch(() => client && lost(client))
    }, 1000)
    retry.unref?.()
  }
  await connect()
  return async () => {
    stopped = true
    if (retry) clearTimeout(retry)
    retry = null
    const c = client
    client = null
    await c?.end().catch(() => undefined)
  }
}

/**
 * The bounds a Postgres pool was opened with, for `boundedTransaction` (lib/db/bounded.ts),
 * kept on the pool itself under a process-wide symbol. Not in a module's own map: the
 * production build gives instrumentation.ts and the route handlers each their own copy of
 * this module, so a map filled where the database was opened (at start-up) was empty where
 * the routes asked, and every "bounded" transaction ran unbounded (issue 34's replay: the
 * 4 s creates, a lock wait on the staff lock and then one on the table).
 */
const BOUNDS = Symbol.for("treasury-console.db.transaction-bounds")

/** The bounds of `db`'s pool; null on PGlite, on a pool opened without bounds, or inside a transaction. */
export function transactionBoundsOf(db: Db): DatabaseLimits | null {
  const client = (db as { $client?: unknown }).$client
  return client instanceof pg.Pool ? ((client as unknown as Record<symbol, DatabaseLimits | undefined>)[BOUNDS] ?? null) : null
}

type ConnectCallback = (error: Error | undefined, client: pg.PoolClient | undefined, release: (error?: Error) => void) => void

/**
 * The pool's acquire, held to the request's one database deadline (lib/db/deadline.ts): a
 * free connection is taken at once; a wait for one ends when the deadline does (a
 * DatabaseDeadlineError), not after the pool's whole connect timeout. A connection that
 * turns up after its waiter gave up goes straight back to the pool. pg's own queries ask
 * through `this.connect(callback)`, so both forms are covered.
 */
function boundAcquireByDeadline(pool: pg.Pool): void {
  const connect = pool.connect.bind(pool) as (callback: ConnectCallback) => void
  const acquire = (): Promise<pg.PoolClient> =>
    new Promise((resolve, reject) => {
      const left = databaseTimeLeft()
      let settled = false
      const timer =
        left === null || pool.idleCount > 0
          ? null
          : setTimeout(() => {
              settled = true
              reject(new DatabaseDeadlineError())
            }, Math.max(0, left))
      connect((error, client, release) => {
        if (settled) {
          if (!error) release()
          return
        }
        settled = true
        if (timer) clearTimeout(timer)
        if (error || !client) reject(error ?? new Error("the pool answered no client"))
        else resolve(client)
      })
    })
  pool.connect = ((callback?: ConnectCallback) => {
    if (!callback) return acquire()
    acquire().then(
      (client) => callback(undefined, client, (error?: Error) => client.release(error)),
      (error: Error) => callback(error, undefined, () => undefined),
    )
    return undefined
  }) as typeof pool.connect
}

export const MIGRATIONS_FOLDER = path.join(process.cwd(), "lib", "db", "migrations")

/**
 * Opens a database: node-postgres when `url` is given, else PGlite on `dataDir`
 * (created if missing), or in memory when neither is given.
 */
export async function openDatabase(options: { url?: string | undefined; dataDir?: string | undefined; limits?: DatabaseLimits | undefined }): Promise<Database> {
  if (options.url) {
    const limits = options.limits
    const pool = new pg.Pool({
      connectionString: options.url,
      max: limits?.poolMax ?? 10,
      application_name: "treasury-console",
      // Bounded: a request waits this long for a connection (new, or a free one of the pool),
      // the server cancels a statement past its timeout, and a lock wait past its own.
      ...(limits
        ? {
            connectionTimeoutMillis: limits.connectTimeoutMs,
            statement_timeout: limits.statementTimeoutMs,
            lock_timeout: limits.lockTimeoutMs,
          }
        : {}),
    })
    // A pooled client that errors while idle must not crash the process.
    pool.on("error", () => undefined)
    // Nor one that errors while checked out with no query running: the server ending a
    // transaction its caller stopped driving (idle_in_transaction_session_timeout, see
    // lib/db/bounded.ts) sends a FATAL that pg emits as the client's "error" event, which
    // with no listener is an uncaught exception. The pool drops the dead client on release.
    pool.on("connect", (client) => {
      client.on("error", (error: Error & { code?: string }) => log.warn("db.connection_lost", { code: error.code ?? "unknown" }))
    })
    if (limits) {
      ;(pool as unknown as Record<symbol, DatabaseLimits>)[BOUNDS] = limits
      boundAcquireByDeadline(pool)
    }
    const db = drizzlePg(pool, { schema, casing: "snake_case" })
    return {
      db: db as unknown as Db,
      driver: "postgres",
      migrate: () => migrateLocked(pool),
      close: () => pool.end(),
      listen: (channel, onNotify, onLost) => listenPostgres(options.url ?? "", channel, onNotify, onLost),
    }
  }
  // The database's folder and files are the server user's alone (0700 and 0600).
  if (options.dataDir) ensurePrivateDir(path.dirname(path.resolve(options.dataDir)))
  const client = await openPglite(options.dataDir)
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
    listen: async (channel, onNotify) => {
      if (!CHANNEL.test(channel)) throw new Error("a channel is a lower-case identifier")
      const stop = await client.listen(channel, onNotify)
      return () => stop()
    },
  }
}

/**
 * PGlite's settings for a console's work. Postgres's page cache (shared_buffers) lives in
 * PGlite's WebAssembly memory and is resident from the start: 16 MB instead of Postgres's
 * 128 MB takes about 140 MiB off the process. The console's working set (recent intents,
 * audit rows, the sandbox's records) fits in it; a page that does not is read from the
 * data folder through the operating system's file cache, at the cost of a copy.
 */
export const PGLITE_START_PARAMS: readonly string[] = [...PGlite.defaultStartParams, "-c", "shared_buffers=16MB"]

/** PGlite on `dataDir` (created if missing), or in memory. */
export async function openPglite(dataDir: string | undefined): Promise<PGlite> {
  if (dataDir && !existsSync(path.join(dataDir, "PG_VERSION"))) await createPgliteDataDir(path.resolve(dataDir))
  return PGlite.create({ ...(dataDir ? { dataDir } : {}), startParams: [...PGLITE_START_PARAMS] })
}

// Run with the data folder as its one argument; resolves PGlite from the working directory.
const CREATE_SCRIPT = [
  'import { PGlite } from "@electric-sql/pglite"',
  "const db = await PGlite.create({ dataDir: process.argv[1] })",
  "await db.close()",
].join("\n")

/**
 * Creates a PGlite database in `dir`. Running initdb leaves the process that ran it some
 * 500 MiB larger for good (WebAssembly memory never shrinks), so it runs in a short-lived
 * child process, which gives that memory back when it exits. A new database is the same
 * for every folder, so the first one made is kept (never opened) in node_modules/.cache and
 * later ones are copies of it: a fresh folder then costs a copy (0.1 s) instead of initdb
 * (2 to 4 s), which every e2e and benchmark start pays. The database is made in a folder
 * beside `dir` and renamed into place, so a creation cut short leaves no half-made database.
 * `cached: false` runs initdb even when a copy is kept (the benchmark times both).
 */
export async function createPgliteDataDir(dir: string, options: { cached?: boolean } = {}): Promise<void> {
  if (existsSync(dir) && readdirSync(dir).length > 0) throw notADatabase(dir)
  mkdirSync(path.dirname(dir), { recursive: true })
  const staging = `${dir}.creating-${process.pid}`
  rmSync(staging, { recursive: true, force: true })
  try {
    const template = options.cached === false ? null : templateDir()
    if (template && existsSync(path.join(template, "PG_VERSION"))) {
      cpSync(template, staging, { recursive: true })
    } else {
      await initdbInChild(staging)
      if (template) keepAsTemplate(staging, template)
    }
    try {
      renameSync(staging, dir)
    } catch {
      throw notADatabase(dir)
    }
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
}

function initdbInChild(dir: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    execFile(process.execPath, ["--input-type=module", "-e", CREATE_SCRIPT, dir], { cwd: process.cwd() }, (error, _stdout, stderr) => {
      if (error) reject(new Error(`creating the database in ${dir} failed: ${stderr.trim() || error.message}`))
      else resolve()
    })
  })
}

/**
 * Where the new database is kept, split at run time: a path the build's file tracer can
 * work out is copied into the standalone server (the image), and a copy of this machine's
 * cache made while it was being written broke every start there.
 */
const TEMPLATE_CACHE = "node_modules/.cache/treasury-console".split("/")

/** The cached new database for this PGlite version, or null when the version cannot be read. */
function templateDir(): string | null {
  try {
    const manifest = JSON.parse(readFileSync(path.join(process.cwd(), "node_modules", "@electric-sql", "pglite", "package.json"), "utf8")) as { version?: unknown }
    if (typeof manifest.version !== "string" || !/^[\w.-]+$/.test(manifest.version)) return null
    return path.join(process.cwd(), ...TEMPLATE_CACHE, `pglite-${manifest.version}`)
  } catch {
    return null
  }
}

/** Best effort: a read-only install, or another process keeping its copy first, only means no cache. */
function keepAsTemplate(source: string, template: string): void {
  const partial = `${template}.partial-${process.pid}`
  try {
    cpSync(source, partial, { recursive: true })
    renameSync(partial, template)
  } catch {
    rmSync(partial, { recursive: true, force: true })
  }
}

function notADatabase(dir: string): Error {
  return new Error(`${dir} exists and holds something other than a database: move it away, or point DATA_DIR elsewhere`)
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
    // Migrations may wait for another instance's and take their time: no statement or lock
    // timeout on this session until they are done (RESET restores the connection's own).
    await client.query("set statement_timeout = 0; set lock_timeout = 0")
    await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK])
    try {
      await migratePg(drizzlePg(client, { schema, casing: "snake_case" }), { migrationsFolder: MIGRATIONS_FOLDER })
    } finally {
      await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK])
      await client.query("reset statement_timeout; reset lock_timeout")
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
export function getDatabase(config: { url: string | undefined; dataDir: string; limits?: DatabaseLimits }): Promise<Database> {
  globalForDb.__consoleDatabase ??= (async () => {
    const database = await openDatabase({
      url: config.url,
      limits: config.limits,
      dataDir: config.url ? undefined : path.join(config.dataDir, "pglite"),
    })
    try {
      await database.migrate()
    } catch (error) {
      // Unreachable or refusing: the next request opens a new pool, this one must not linger.
      await database.close().catch(() => undefined)
      throw error
    }
    return database
  })()
  globalForDb.__consoleDatabase.catch(() => {
    globalForDb.__consoleDatabase = undefined
  })
  return globalForDb.__consoleDatabase
}
