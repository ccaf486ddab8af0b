// `npm run test:mutation [file ...]`: mutation testing of the money path, each file of
// stryker.config.mjs's `targets` against its own tests. Prints a score per file (killed or
// timed out, of the mutants a test reaches) and writes an HTML report per file under
// reports/mutation/. Exits 1 when a file scores under 85 % or leaves over 5 % unreached.
import { writeFileSync } from "node:fs"
import { Stryker } from "@stryker-mutator/core"
import base, { targets } from "../stryker.config.mjs"

const MIN_SCORE = 85
const MAX_UNREACHED = 5

const asked = process.argv.slice(2)
const unknown = asked.filter((file) => !(file in targets))
if (unknown.length > 0) {
  console.error(`not a mutation target: ${unknown.join(", ")} (see stryker.config.mjs)`)
  process.exit(2)
}
// The DB tests run on PGlite in memory only: one driver, no server to share.
delete process.env.TEST_DATABASE_URL

const rows = []
for (const file of asked.length > 0 ? asked : Object.keys(targets)) {
  const slug = file.replace(/^lib\//, "").replace(/\.ts$/, "").replaceAll("/", "-")
  // The TypeScript checker sees the file, its tests and what they import: a mutant that
  // does not compile there is not run.
  const tsconfig = { extends: "./tsconfig.json", compilerOptions: { incremental: false, plugins: [] }, include: ["types/**/*.d.ts"], files: [file, ...targets[file]] }
  writeFileSync("tsconfig.mutation.json", `${JSON.stringify(tsconfig, null, 2)}\n`)
  // The test runner's processes inherit it: vitest.mutation.config.ts runs only these files.
  process.env.MUTATION_TEST_FILES = targets[file].join(",")
  const results = await new Stryker({
    ...base,
    mutate: [file],
    reporters: ["html", "progress"],
    htmlReporter: { fileName: `reports/mutation/${slug}.html` },
  }).runMutationTest()
  const count = (...statuses) => results.filter((r) => statuses.includes(r.status)).length
  const killed = count("Killed", "Timeout")
  const survived = count("Survived")
  const unreached = count("NoCoverage")
  const valid = killed + survived + unreached
  const score = killed + survived === 0 ? 100 : (100 * killed) / (killed + survived)
  const unreachedPct = valid === 0 ? 0 : (100 * unreached) / valid
  rows.push({ file, killed, survived, unreached, score, unreachedPct })
  for (const r of results.filter((m) => m.status === "Survived" || m.status === "NoCoverage")) {
    const at = r.location.start
    console.log(`  ${r.status.padEnd(10)} ${file}:${at.line}:${at.column + 1} ${r.mutatorName} ${JSON.stringify(r.replacement ?? "")}`)
  }
}

console.log("\n| file | killed / covered | not reached | score |\n|---|---|---|---|")
let failed = false
for (const r of rows) {
  const bad = r.score < MIN_SCORE || r.unreachedPct > MAX_UNREACHED
  failed ||= bad
  console.log(`| \`${r.file}\` | ${r.killed} / ${r.killed + r.survived} | ${r.unreached} (${r.unreachedPct.toFixed(0)} %) | ${r.score.toFixed(1)} %${bad ? " ✗" : ""} |`)
}
console.log("\nHTML reports: reports/mutation/")
process.exit(failed ? 1 : 0)
