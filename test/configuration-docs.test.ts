import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { CONFIGURATION_DOC, ENV_EXAMPLE, configurationDocProblems, envExampleProblems } from "../scripts/config-docs"

const scratch = mkdtempSync(path.join(tmpdir(), "config-docs-"))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

/** A copy of `file` in the scratch folder, changed by `edit`. */
function editedCopy(file: string, edit: (text: string) => string): string {
  const copy = path.join(scratch, `${Math.random().toString(36).slice(2)}-${path.basename(file)}`)
  copyFileSync(file, copy)
  writeFileSync(copy, edit(readFileSync(copy, "utf8")))
  return copy
}

describe("configuration is written once (lib/env/vars.ts)", () => {
  it("docs/configuration.md's table is the schema's, and its prose names only the schema's variables", () => {
    expect(configurationDocProblems(CONFIGURATION_DOC)).toEqual([])
  })

  it(".env.example lists exactly the schema's variables, each once, with its default", () => {
    expect(envExampleProblems(ENV_EXAMPLE)).toEqual([])
  })

  it("fails on a variable added to .env.example only", () => {
    const copy = editedCopy(ENV_EXAMPLE, (text) => `${text}# The region of the service.\nUPSTREAM_REGION=\n`)
    expect(envExampleProblems(copy)).toEqual(["UPSTREAM_REGION: not a variable of the schema (lib/env/vars.ts)"])
  })

  it("fails on a variable .env.example misses, and on another default", () => {
    const missing = editedCopy(ENV_EXAMPLE, (text) => text.replace(/^METRICS_TOKEN=\n/m, ""))
    expect(envExampleProblems(missing)).toEqual(["METRICS_TOKEN: listed 0 times (once expected)"])
    const otherDefault = editedCopy(ENV_EXAMPLE, (text) => text.replace("# SANDBOX_PORT=4010", "# SANDBOX_PORT=4011"))
    expect(envExampleProblems(otherDefault)).toEqual(["SANDBOX_PORT: says 4011, the schema's default is 4010"])
  })

  it("fails on a hand-edited table or a variable named only in the guide's prose", () => {
    const edited = editedCopy(CONFIGURATION_DOC, (text) => text.replace("| `4010` |", "| `4011` |"))
    expect(configurationDocProblems(edited)).toEqual([expect.stringContaining("the variables table is not the schema's")])
    const prose = editedCopy(CONFIGURATION_DOC, (text) => `${text}\nSet \`UPSTREAM_REGION=eu\` for Europe.\n`)
    expect(configurationDocProblems(prose)).toEqual([expect.stringContaining("names UPSTREAM_REGION")])
  })
})
