import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { eq } from "drizzle-orm"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Database, openDatabase } from "@/lib/db/client"
import { consoleIntents } from "@/lib/db/schema"
import { testDatabaseUrl } from "@/lib/env"
import { createEmptyPostgresDatabase, createTestDatabase, testDrivers } from "@/test/db"
import { insertIntentRows } from "@/test/intents"

describe.each(testDrivers())("database on %s", (driver) => {
  let database: Database
  beforeAll(async () => {
    database = await createTestDatabase(driver)
  })
  afterAll(async () => {
    await database?.close()
  })

  it("applies the migrations and stores an intent", async () => {
    const [row] = await insertIntentRows(database.db, {
      staffEmail: "trader@example.com",
      staffRole: "trader",
      operation: "create_execution",
      profileId: "p1",
      refId: "r-1",
      request: { quote_id: "q", base_amount: "0.10000000" },
    })
    expect(row?.state).toBe("PENDING")
    const found = await database.db.select().from(consoleIntents).where(eq(consoleIntents.refId, "r-1"))
    expect(found[0]?.request).toEqual({ quote_id: "q", base_amount: "0.10000000" })
  })

  it("refuses a second create intent with the same ref_id", async () => {
    const values = {
      staffEmail: "trader@example.com",
      staffRole: "trader",
      operation: "create_conversion" as const,
      refId: "dup-1",
      request: {},
    }
    await insertIntentRows(database.db, values)
    await expect(insertIntentRows(database.db, values)).rejects.toThrow()
  })

  it("migrating twice is harmless", async () => {
    await database.migrate()
  })
})

describe.runIf(testDatabaseUrl())("several instances starting together on Postgres", () => {
  it("migrate one at a time: every instance starts, and the schema is applied once", async () => {
    const empty = await createEmptyPostgresDatabase()
    const instances = await Promise.all(Array.from({ length: 4 }, () => openDatabase({ url: empty.url })))
    try {
      await Promise.all(instances.map((instance) => instance.migrate()))
      const inserted = await insertIntentRows(instances[0]!.db, { staffEmail: "a@example.com", staffRole: "admin", operation: "create_execution", refId: "r", request: {} })
      expect(inserted).toHaveLength(1)
    } finally {
      await Promise.all(instances.map((instance) => instance.close()))
      await empty.drop()
    }
  })
})

describe("PGlite on a data folder", () => {
  let root: string
  beforeAll(() => {
    root = mkdtempSync(path.join(tmpdir(), "console-db-test-"))
  })
  afterAll(() => {
    rmSync(root, { recursive: true, force: true })
  })

  it("creates the database on a fresh folder, and finds its rows when opened again", async () => {
    const dataDir = path.join(root, "nested", "pglite")
    const first = await openDatabase({ dataDir })
    try {
      await first.migrate()
      await insertIntentRows(first.db, { staffEmail: "a@example.com", staffRole: "admin", operation: "create_execution", refId: "kept", request: {} })
    } finally {
      await first.close()
    }
    expect(readdirSync(path.join(root, "nested"))).toEqual(["pglite"])
    const again = await openDatabase({ dataDir })
    try {
      const rows = await again.db.select().from(consoleIntents).where(eq(consoleIntents.refId, "kept"))
      expect(rows).toHaveLength(1)
    } finally {
      await again.close()
    }
  }, 60_000)

  it("a second fresh folder is a database of its own: nothing of the first one's rows", async () => {
    const first = await openDatabase({ dataDir: path.join(root, "first") })
    try {
      await first.migrate()
      await insertIntentRows(first.db, { staffEmail: "a@example.com", staffRole: "admin", operation: "create_execution", refId: "only-in-first", request: {} })
    } finally {
      await first.close()
    }
    const second = await openDatabase({ dataDir: path.join(root, "second") })
    try {
      await second.migrate()
      expect(await second.db.select().from(consoleIntents)).toEqual([])
    } finally {
      await second.close()
    }
  }, 60_000)

  it("refuses a folder that holds something other than a database, and leaves it as it was", async () => {
    const dataDir = path.join(root, "not-a-database")
    mkdirSync(dataDir)
    writeFileSync(path.join(dataDir, "notes.txt"), "mine")
    await expect(openDatabase({ dataDir })).rejects.toThrow(/not-a-database exists and holds something other than a database/)
    expect(readdirSync(dataDir)).toEqual(["notes.txt"])
    expect(readdirSync(root).filter((name) => name.includes("creating"))).toEqual([])
  }, 60_000)
})
