// `npm run test:e2e`'s last step: the Playwright suite as two processes side by side, each
// with its own servers on its own ports and one test at a time (playwright.config.ts,
// E2E_SHARD): shard a runs half of the main server's specs on a main server of its own
// (E2E_PORT, default 3100); shard b the other half and every other project on the servers
// 200 ports up (3300, with the orchestrations, SSO, standalone and failover servers above
// it). One Playwright process ran the main server's specs one after another while its
// second worker sat idle once the other servers' few specs were done; two main servers
// share the work. Arguments are passed to both (a spec file a shard does not hold is simply
// not run there). Each line of output is prefixed with its shard; the exit code is the
// first failure's, after both have finished.
import { spawn } from "node:child_process"
import path from "node:path"

const base = Number(process.env.E2E_PORT ?? 3100)
const shards = [
  { name: "a", port: base },
  { name: "b", port: base + 200 },
]
const playwright = path.join("node_modules", ".bin", process.platform === "win32" ? "playwright.cmd" : "playwright")

function prefixLines(stream, prefix, out) {
  let rest = ""
  stream.setEncoding("utf8")
  stream.on("data", (chunk) => {
    const lines = (rest + chunk).split("\n")
    rest = lines.pop() ?? ""
    for (const line of lines) out.write(`${prefix}${line}\n`)
  })
  stream.on("end", () => {
    if (rest) out.write(`${prefix}${rest}\n`)
  })
}

const started = Date.now()
const children = shards.map((shard) => {
  const child = spawn(playwright, ["test", ...process.argv.slice(2)], {
    env: { ...process.env, E2E_SHARD: shard.name, E2E_PORT: String(shard.port) },
    stdio: ["ignore", "pipe", "pipe"],
  })
  prefixLines(child.stdout, `[${shard.name}] `, process.stdout)
  prefixLines(child.stderr, `[${shard.name}] `, process.stderr)
  const done = new Promise((resolve) => {
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)))
    child.on("error", (error) => {
      process.stderr.write(`[${shard.name}] could not start Playwright: ${error.message}\n`)
      resolve(1)
    })
  })
  return { ...shard, child, done }
})

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    for (const { child } of children) child.kill(signal)
  })
}

const codes = await Promise.all(children.map((c) => c.done))
const minutes = ((Date.now() - started) / 60_000).toFixed(1)
for (const [i, c] of children.entries()) {
  console.log(`e2e shard ${c.name} (port ${c.port}): ${codes[i] === 0 ? "passed" : `failed (exit ${codes[i]})`}; report in playwright-report/${c.port}/`)
}
console.log(`e2e: both shards done in ${minutes} min`)
process.exit(codes.find((code) => code !== 0) ?? 0)
