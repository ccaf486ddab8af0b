// Fails when the project's TypeScript imports run in a circle (part of `npm run lint`).
// Every edge counts: static imports and re-exports (type-only ones too: a circle of types is
// still two modules that cannot be read one after the other) and `import()`. Resolved the way
// tsc resolves them (tsconfig paths), so "@/lib/x" and "./x" are the same module.
import { readdirSync, readFileSync } from "node:fs"
import path from "node:path"
import ts from "typescript"

const root = path.resolve(import.meta.dirname, "..")
const SKIP = new Set(["node_modules", ".git", ".data", "test-results", "playwright-report", "public", ".stryker-tmp", "reports"])
const SOURCE = /\.(ts|tsx|mts)$/

function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIP.has(entry.name) || entry.name.startsWith(".next")) return []
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return sources(full)
    return SOURCE.test(entry.name) && !entry.name.endsWith(".d.ts") ? [full] : []
  })
}

const config = ts.getParsedCommandLineOfConfigFile(path.join(root, "tsconfig.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined })
const options = config?.options ?? {}
const host = ts.createCompilerHost(options)

/** The module specifiers `file` imports, re-exports or loads with import(). */
function specifiers(file) {
  const text = readFileSync(file, "utf8")
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, file.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS)
  const found = []
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text)
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])) found.push(node.arguments[0].text)
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

const files = sources(root)
const known = new Set(files)
const graph = new Map(
  files.map((file) => [
    file,
    [...new Set(specifiers(file).map((spec) => ts.resolveModuleName(spec, file, options, host).resolvedModule?.resolvedFileName).filter((to) => to && known.has(to)))],
  ]),
)

// Tarjan's strongly connected components: every component of more than one file (or a file importing itself) is a circle.
let index = 0
const order = new Map()
const low = new Map()
const stack = []
const onStack = new Set()
const circles = []
function connect(file) {
  order.set(file, index)
  low.set(file, index++)
  stack.push(file)
  onStack.add(file)
  for (const next of graph.get(file)) {
    if (!order.has(next)) {
      connect(next)
      low.set(file, Math.min(low.get(file), low.get(next)))
    } else if (onStack.has(next)) low.set(file, Math.min(low.get(file), order.get(next)))
  }
  if (low.get(file) !== order.get(file)) return
  const component = []
  let member
  do {
    member = stack.pop()
    onStack.delete(member)
    component.push(member)
  } while (member !== file)
  if (component.length > 1 || graph.get(file).includes(file)) circles.push(component)
}
for (const file of files) if (!order.has(file)) connect(file)

/** One concrete loop through a component, for the message: a → b → … → a. */
function loop(component) {
  const members = new Set(component)
  const start = component.sort()[0]
  const seen = new Map([[start, null]])
  const queue = [start]
  while (queue.length > 0) {
    const file = queue.shift()
    for (const next of graph.get(file)) {
      if (next === start) {
        const chain = [file]
        while (seen.get(chain[0])) chain.unshift(seen.get(chain[0]))
        return [...chain, start]
      }
      if (members.has(next) && !seen.has(next)) {
        seen.set(next, file)
        queue.push(next)
      }
    }
  }
  return component
}

if (circles.length > 0) {
  const rel = (file) => path.relative(root, file)
  console.error(`${circles.length} import circle${circles.length === 1 ? "" : "s"} (a module must not import, even through others, what imports it):`)
  for (const component of circles) {
    console.error(`  ${loop(component).map(rel).join(" → ")}`)
    if (component.length > loop(component).length - 1) console.error(`    (${component.length} files in all: ${component.map(rel).sort().join(", ")})`)
  }
  process.exit(1)
}
console.log(`import circles: none in ${files.length} files`)
