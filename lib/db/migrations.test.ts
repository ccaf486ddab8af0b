import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { PGlite } from "@electric-sql/pglite"
import { drizzle } from "drizzle-orm/pglite"
import { migrate } from "drizzle-orm/pglite/migrator"
import { afterAll, describe, expect, it } from "vitest"
import { MIGRATIONS_FOLDER } from "@/lib/db/client"

interface Journal {
  entries: { idx: number; when: number; tag: string }[]
}

const journal = JSON.parse(readFileSync(path.join(MIGRATIONS_FOLDER, "meta", "_journal.json"), "utf8")) as Journal
const scratch = mkdtempSync(path.join(tmpdir(), "console-migrations-"))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

let folders = 0

/** The migrations folder as it was when its journal held these entries. */
function folderWith(entries: Journal["entries"]): string {
  const folder = path.join(scratch, `then-${folders++}`)
  cpSync(MIGRATIONS_FOLDER, folder, { recursive: true })
  writeFileSync(path.join(folder, "meta", "_journal.json"), JSON.stringify({ ...journal, entries }))
  return folder
}

async function columns(client: PGlite): Promise<string[]> {
  const result = await client.query<{ c: string }>(
    `select table_name || '.' || column_name || ' ' || data_type as c from information_schema.columns
      where table_schema = 'public' order by 1`,
  )
  const indexes = await client.query<{ c: string }>(`select indexname as c from pg_indexes where schemaname = 'public' order by 1`)
  return [...result.rows.map((r) => r.c), ...indexes.rows.map((r) => `index ${r.c}`)]
}

describe("migrations", () => {
  it("each journal entry is dated after the one before: drizzle applies only entries later than the last applied", () => {
    const out = journal.entries.filter((e, i) => i > 0 && e.when <= (journal.entries[i - 1]?.when ?? 0)).map((e) => e.tag)
    expect(out).toEqual([])
  })

  // 0008 was once dated before 0007: a database migrated to 0007 never got it. It is now
  // dated after 0007 and written to apply on a database that has it already.
  it.each([
    ["at 0007, before 0008 existed", (entries: Journal["entries"]) => entries.slice(0, 8)],
    ["with 0008 under its old date", (entries: Journal["entries"]) => entries.slice(0, 9).map((e) => (e.idx === 8 ? { ...e, when: 1795450778754 } : e))],
  ])("a database migrated %s reaches the same schema as a fresh one", async (_, journalThen) => {
    const fresh = new PGlite()
    await migrate(drizzle(fresh), { migrationsFolder: MIGRATIONS_FOLDER })
    const expected = await columns(fresh)
    await fresh.close()
    const client = new PGlite()
    await migrate(drizzle(client), { migrationsFolder: folderWith(journalThen(journal.entries)) })
    await migrate(drizzle(client), { migrationsFolder: MIGRATIONS_FOLDER })
    expect(await columns(client)).toEqual(expected)
    await client.close()
  }, 120_000)
})
