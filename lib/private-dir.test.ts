import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { openDatabase } from "@/lib/db/client"

const root = mkdtempSync(path.join(tmpdir(), "private-dir-"))
afterAll(() => rmSync(root, { recursive: true, force: true }))

function modes(dir: string): { dirs: Set<string>; files: Set<string> } {
  const out = { dirs: new Set<string>(), files: new Set<string>() }
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const mode = (statSync(path.join(entry.parentPath, entry.name)).mode & 0o777).toString(8)
    if (entry.isDirectory()) out.dirs.add(mode)
    else out.files.add(mode)
  }
  return out
}

describe("DATA_DIR is the server user's alone", () => {
  it("a new data folder is 0700 and every PGlite file in it 0600, and a file left open by an older version is tightened", async () => {
    const dataDir = path.join(root, "data")
    mkdirSync(dataDir, { mode: 0o777 })
    chmodSync(dataDir, 0o777)
    writeFileSync(path.join(dataDir, "old-file"), "x", { mode: 0o666 })
    chmodSync(path.join(dataDir, "old-file"), 0o666)
    const database = await openDatabase({ dataDir: path.join(dataDir, "pglite") })
    await database.migrate()
    await database.close()
    expect((statSync(dataDir).mode & 0o777).toString(8)).toBe("700")
    const found = modes(dataDir)
    expect(found.files.size).toBeGreaterThan(0)
    expect([...found.files]).toEqual(["600"])
    expect([...found.dirs]).toEqual(["700"])
  })
})
