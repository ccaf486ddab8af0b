import "server-only"
import { randomBytes } from "node:crypto"
import { chmodSync, readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { env } from "@/lib/env"
import { ensurePrivateDir } from "@/lib/private-dir"

let cached: string | undefined

/**
 * The key that signs and encrypts session tokens: NEXTAUTH_SECRET, or in sandbox mode
 * a random one generated once and kept under DATA_DIR (so sessions survive restarts).
 */
export function authSecret(): string {
  if (cached) return cached
  const config = env()
  if (config.nextAuthSecret) {
    cached = config.nextAuthSecret
    return cached
  }
  if (config.mode !== "sandbox") throw new Error("NEXTAUTH_SECRET is required outside sandbox mode")
  const file = path.resolve(config.dataDir, "nextauth-secret")
  try {
    cached = readFileSync(file, "utf8").trim()
  } catch {
    ensurePrivateDir(path.dirname(file))
    const secret = randomBytes(32).toString("base64url")
    try {
      // "wx": if another process won the race, read what it wrote.
      writeFileSync(file, secret + "\n", { flag: "wx", mode: 0o600 })
      chmodSync(file, 0o600)
      cached = secret
    } catch {
      cached = readFileSync(file, "utf8").trim()
    }
  }
  if (!cached || cached.length < 32) throw new Error(`the generated auth secret in ${file} is unusable; delete the file`)
  return cached
}
