import { readFileSync, readdirSync } from "node:fs"
import path from "node:path"
import { describe, expect, it } from "vitest"
import { CONSOLE_PROBLEM_CODES, SERVICE_PROBLEM_CODES } from "@/lib/problem"

const root = path.resolve(import.meta.dirname, "..")

/** The rows of docs/api.md's "Problem codes" section: code → its HTTP status column. */
function documentedCodes(): Map<string, string> {
  const doc = readFileSync(path.join(root, "docs/api.md"), "utf8")
  const start = doc.search(/^## Problem codes$/m)
  if (start === -1) throw new Error('docs/api.md has no "## Problem codes" section')
  const next = doc.indexOf("\n## ", start + 1)
  const section = doc.slice(start, next === -1 ? undefined : next)
  const rows = new Map<string, string>()
  for (const line of section.split("\n")) {
    const cells = /^\|\s*`([a-z_]+)`\s*\|([^|]*)\|/.exec(line)
    if (cells?.[1] && cells[2] !== undefined) rows.set(cells[1], cells[2].trim())
  }
  return rows
}

describe("the problem codes in docs/api.md", () => {
  const documented = documentedCodes()

  it("list every code of the console's with its status", () => {
    for (const [code, status] of Object.entries(CONSOLE_PROBLEM_CODES)) {
      expect(documented.get(code), `docs/api.md lists ${code}`).toBe(String(status))
    }
  })

  it("list every code given to the service's problems", () => {
    for (const code of SERVICE_PROBLEM_CODES) {
      expect(documented.get(code), `docs/api.md lists ${code}`).toMatch(/^the service's/)
    }
  })

  it("list no code the console does not have", () => {
    const declared = new Set<string>([...Object.keys(CONSOLE_PROBLEM_CODES), ...SERVICE_PROBLEM_CODES])
    expect([...documented.keys()].filter((code) => !declared.has(code))).toEqual([])
  })
})

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)))
}

describe("where problems are made", () => {
  it("the console makes its problems through lib/problem.ts's constructors, each with a code", () => {
    const consoleFiles = [...sourceFiles("app"), ...sourceFiles("lib"), "proxy.ts"].filter((file) => file !== "lib/problem.ts" && !file.startsWith("lib/sandbox/"))
    const bare = consoleFiles.filter((file) => readFileSync(path.join(root, file), "utf8").includes("new HttpProblem("))
    expect(bare).toEqual([])
  })

  it("the sandbox answers as the service does: it takes no console constructor", () => {
    const borrowed = sourceFiles("lib/sandbox").filter((file) => {
      const imported = /import \{([^}]*)\} from "@\/lib\/problem"/.exec(readFileSync(path.join(root, file), "utf8"))?.[1] ?? ""
      return imported
        .split(",")
        .map((name) => name.replace(/^\s*type\s+/, "").trim())
        .some((name) => name !== "" && name !== "HttpProblem" && name !== "problemResponse")
    })
    expect(borrowed).toEqual([])
  })
})
