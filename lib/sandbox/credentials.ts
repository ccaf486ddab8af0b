import "server-only"
import { randomBytes } from "node:crypto"
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises"
import path from "node:path"
import { eq } from "drizzle-orm"
import type { Db } from "@/lib/db/client"
import { sandboxClients } from "@/lib/db/schema"
import { hashSecret, verifySecret } from "@/lib/sandbox/oauth"
import { SANDBOX_SCOPES } from "@/lib/schemas/scopes"

interface ClientCredentials {
  clientId: string
  clientSecret: string
}

/**
 * The sandbox's OAuth client. With an id and secret from the environment, that pair is
 * registered (its hash updated if the secret changed). Without them, the pair kept in
 * `credentialsFile` is reused when the database still knows it; otherwise a new pair is
 * generated, its hash stored, and the plaintext written to the file (mode 0600) so the
 * console can authenticate after a restart.
 */
export async function ensureClient(
  db: Db,
  now: () => Date,
  options: { clientId?: string | undefined; clientSecret?: string | undefined; credentialsFile?: string | undefined },
): Promise<ClientCredentials> {
  if (options.clientId && options.clientSecret) {
    await register(db, now, options.clientId, options.clientSecret)
    return { clientId: options.clientId, clientSecret: options.clientSecret }
  }
  if (options.credentialsFile) {
    const stored = await readCredentials(options.credentialsFile)
    if (stored && (await isRegistered(db, stored))) return stored
  }
  const generated: ClientCredentials = {
    clientId: `sandbox-${randomBytes(6).toString("hex")}`,
    clientSecret: randomBytes(32).toString("base64url"),
  }
  await register(db, now, generated.clientId, generated.clientSecret)
  if (options.credentialsFile) await writeCredentials(options.credentialsFile, generated)
  return generated
}

async function register(db: Db, now: () => Date, clientId: string, clientSecret: string): Promise<void> {
  const [existing] = await db.select().from(sandboxClients).where(eq(sandboxClients.clientId, clientId))
  if (existing && (await verifySecret(clientSecret, existing.secretHash))) {
    if (SANDBOX_SCOPES.some((s) => !existing.scopes.includes(s))) {
      await db.update(sandboxClients).set({ scopes: [...SANDBOX_SCOPES] }).where(eq(sandboxClients.clientId, clientId))
    }
    return
  }
  const secretHash = await hashSecret(clientSecret)
  await db
    .insert(sandboxClients)
    .values({ clientId, secretHash, scopes: [...SANDBOX_SCOPES], createdAt: now() })
    .onConflictDoUpdate({ target: sandboxClients.clientId, set: { secretHash, scopes: [...SANDBOX_SCOPES] } })
}

async function isRegistered(db: Db, credentials: ClientCredentials): Promise<boolean> {
  const [row] = await db.select().from(sandboxClients).where(eq(sandboxClients.clientId, credentials.clientId))
  return row !== undefined && (await verifySecret(credentials.clientSecret, row.secretHash))
}

async function readCredentials(file: string): Promise<ClientCredentials | null> {
  try {
    const parsed: unknown = JSON.parse(await readFile(file, "utf8"))
    if (parsed && typeof parsed === "object") {
      const { client_id: clientId, client_secret: clientSecret } = parsed as Record<string, unknown>
      if (typeof clientId === "string" && typeof clientSecret === "string" && clientId && clientSecret) {
        return { clientId, clientSecret }
      }
    }
  } catch {
    // Missing or unreadable: a new pair is generated.
  }
  return null
}

async function writeCredentials(file: string, credentials: ClientCredentials): Promise<void> {
  await mkdir(path.dirname(path.resolve(file)), { recursive: true })
  const body = JSON.stringify({ client_id: credentials.clientId, client_secret: credentials.clientSecret }, null, 2)
  await writeFile(file, body + "\n", { mode: 0o600 })
  // writeFile's mode only applies when it creates the file.
  await chmod(file, 0o600)
}
