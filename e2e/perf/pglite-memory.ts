// Run by the benchmark, one process per figure: what opening PGlite on a data folder adds
// to a Node process's resident memory, and how long it takes.
//   tsx --conditions=react-server e2e/perf/pglite-memory.ts <postgres-defaults|console|console-initdb> DIR
// postgres-defaults: PGlite.create() as it comes; console: as the console opens it;
// console-initdb: the same, but a fresh folder runs initdb (in a child) instead of copying
// the kept new database, as the very first start on an install does.
import { PGlite } from "@electric-sql/pglite"
import { createPgliteDataDir, openPglite } from "@/lib/db/client"

const [how, dataDir] = process.argv.slice(2)
if ((how !== "postgres-defaults" && how !== "console" && how !== "console-initdb") || !dataDir) {
  throw new Error("usage: pglite-memory.ts <postgres-defaults|console|console-initdb> DIR")
}
const before = process.memoryUsage().rss
const started = performance.now()
if (how === "console-initdb") await createPgliteDataDir(dataDir, { cached: false })
const db = how === "postgres-defaults" ? await PGlite.create({ dataDir }) : await openPglite(dataDir)
await db.query("select 1")
const ms = performance.now() - started
process.stdout.write(JSON.stringify({ addedMiB: (process.memoryUsage().rss - before) / 2 ** 20, ms }) + "\n")
await db.close()
