import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { describe, expect, it } from "vitest"

const root = path.resolve(import.meta.dirname, "..")

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\p{Pc} -]/gu, "")
    .replace(/ /g, "-")
}

/** Markdown without fenced code blocks: a `#` there is no heading. */
function withoutFences(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, "")
}

/** Markdown without code: a fenced block or an inline span holds no links. */
function prose(text: string): string {
  return withoutFences(text).replace(/`[^`\n]*`/g, "")
}

function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>()
  for (const [, heading = ""] of withoutFences(readFileSync(file, "utf8")).matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const base = slug(heading)
    let anchor = base
    for (let n = 1; anchors.has(anchor); n++) anchor = `${base}-${n}`
    anchors.add(anchor)
  }
  return anchors
}

/** Every relative link of a markdown file that names no existing file, or no heading of it. */
function brokenLinks(file: string): string[] {
  const broken: string[] = []
  for (const [, target = ""] of prose(readFileSync(file, "utf8")).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue
    const [pathPart = "", anchor] = target.split("#")
    const resolved = pathPart === "" ? file : path.resolve(path.dirname(file), decodeURIComponent(pathPart))
    if (!existsSync(resolved)) broken.push(`${target}: no such file`)
    else if (anchor !== undefined && resolved.endsWith(".md") && !anchorsOf(resolved).has(anchor)) broken.push(`${target}: no such heading`)
  }
  return broken
}

const guides = readdirSync(path.join(root, "docs")).filter((f) => f.endsWith(".md"))

describe("the README and the guides link to what exists", () => {
  it.each(["README.md", ...guides.map((g) => `docs/${g}`)])("%s: every relative link and #anchor resolves", (file) => {
    expect(brokenLinks(path.join(root, file))).toEqual([])
  })

  it("the README links every guide", () => {
    const readme = readFileSync(path.join(root, "README.md"), "utf8")
    expect(guides.length).toBeGreaterThanOrEqual(7)
    for (const guide of guides) expect(readme).toContain(`(docs/${guide}`)
  })

  it("finds a missing file, a missing heading, and ignores links inside code", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "docs-links-"))
    try {
      writeFileSync(path.join(dir, "a.md"), "# A guide\n\n## Two words, `code`\n")
      writeFileSync(
        path.join(dir, "b.md"),
        "[ok](a.md#two-words-code) [self](#b) [gone](c.md) [bad](a.md#three) `[code](nowhere.md)`\n\n# B\n",
      )
      expect(brokenLinks(path.join(dir, "b.md"))).toEqual(["c.md: no such file", "a.md#three: no such heading"])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
