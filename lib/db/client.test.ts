import { eq } from "drizzle-orm"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Database, openDatabase } from "@/lib/db/client"
import { consoleIntents } from "@/lib/db/schema"
import { testDatabaseUrl } from "@/lib/env"
import { createEmptyPostgresDatabase, createTestDatabase, testDrivers } from "@/test/db"

describe.each(testDrivers())("database on %s", (driver) => {
  let database: Database
  beforeAll(async () => {
    database = await createTestDatabase(driver)
  })
  afterAll(async () => {
    await database?.close()
  })

  it("applies the migrations and stores an intent", async () => {
    const [row] = await database.db
      .insert(consoleIntents)
      .values({
        staffEmail: "trader@example.com",
        staffRole: "trader",
        operation: "create_execution",
        profileId: "p1",
        refId: "r-1",
        request: { quote_id: "q", base_amount: "0.10000000" },
      })
      .returning()
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
    await database.db.insert(consoleIntents).values(values)
    await expect(database.db.insert(consoleIntents).values(values)).rejects.toThrow()
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
      const inserted = await instances[0]!.db
        .insert(consoleIntents)
        .values({ staffEmail: "a@example.com", staffRole: "admin", operation: "create_execution", refId: "r", request: {} })
        .returning()
      expect(inserted).toHaveLength(1)
    } finally {
      await Promise.all(instances.map((instance) => instance.close()))
      await empty.drop()
    }
  })
})
