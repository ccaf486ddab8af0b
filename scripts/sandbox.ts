// npm run sandbox - the embedded sandbox alone, over HTTP on SANDBOX_PORT (default 4010),
// on its own data folder ($DATA_DIR/sandbox-pglite) unless DATABASE_URL is set. For load
// tests and for clients other than the console: curl, scripts, other services.
import path from "node:path"
import { type Database, openDatabase } from "@/lib/db/client"
import { ConfigError, standaloneSandboxEnv } from "@/lib/env"
import { createSandbox, sandboxConfigFromEnv } from "@/lib/sandbox"
import { type SandboxServer, serveSandbox } from "@/lib/sandbox/node"

async function main(): Promise<void> {
  // Not the console: its rules for next start (a mode, a demo password) are not the sandbox's.
  const config = standaloneSandboxEnv()
  const dataDir = path.resolve(config.dataDir, "sandbox-pglite")
  const database: Database = await openDatabase({
    url: config.databaseUrl,
    dataDir: config.databaseUrl ? undefined : dataDir,
  })
  await database.migrate()

  // Its own file, so it never overwrites the pair the console's sandbox keeps.
  const credentialsFile = path.resolve(config.dataDir, "sandbox-standalone-client.json")
  const fromEnv = Boolean(config.sandbox.clientId && config.sandbox.clientSecret)
  const sandbox = createSandbox({
    db: database.db,
    config: sandboxConfigFromEnv(),
    ...(fromEnv ? { clientId: config.sandbox.clientId, clientSecret: config.sandbox.clientSecret } : { credentialsFile }),
  })
  const { clientId } = await sandbox.ensureClient()
  sandbox.startWorkers()
  const server: SandboxServer = await serveSandbox(sandbox, { port: config.sandbox.port })

  const base = `${server.origin}/sandbox`
  process.stdout.write(
    [
      `sandbox listening on ${server.origin}`,
      `  API base URL   ${base}/v2`,
      `  token URL      ${base}/oauth2/token`,
      `  admin          ${base}/admin/faults  (scope sandbox:admin)`,
      `  client id      ${clientId}`,
      `  client secret  ${fromEnv ? "SANDBOX_CLIENT_SECRET" : `in ${credentialsFile} (mode 0600)`}`,
      `  data           ${config.databaseUrl ? "DATABASE_URL" : dataDir}`,
      "",
    ].join("\n"),
  )

  let stopping = false
  const stop = (signal: string) => {
    if (stopping) return
    stopping = true
    process.stdout.write(`${signal}: stopping the sandbox\n`)
    void (async () => {
      await server.close()
      await sandbox.stop()
      await database.close()
      process.exit(0)
    })().catch((error: unknown) => {
      process.stderr.write(`sandbox: unclean stop: ${error instanceof Error ? error.message : String(error)}\n`)
      process.exit(1)
    })
  }
  process.on("SIGINT", () => stop("SIGINT"))
  process.on("SIGTERM", () => stop("SIGTERM"))
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof ConfigError ? error.message : `sandbox failed to start: ${error instanceof Error ? error.message : String(error)}`}\n`,
  )
  process.exit(1)
})
