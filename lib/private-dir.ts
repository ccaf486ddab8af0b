import "server-only"
import { chmodSync, mkdirSync, readdirSync } from "node:fs"
import path from "node:path"

/**
 * DATA_DIR holds the database files and generated secrets: it is created 0700 (an
 * existing one is tightened to it), and from then on this process creates files 0600 and
 * folders 0700 (umask 077), so PGlite's files are the server user's alone. Files an
 * older version left open to others are tightened too.
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  try {
    chmodSync(dir, 0o700)
  } catch {
    // Not ours to change (a mounted volume): the files inside are still created 0600.
  }
  try {
    process.umask(process.umask() | 0o077)
  } catch {
    // Worker threads cannot change the umask; the chmod pass below still applies.
  }
  try {
    for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
      const full = path.join(entry.parentPath, entry.name)
      if (entry.isDirectory()) chmodSync(full, 0o700)
      else if (entry.isFile()) chmodSync(full, 0o600)
    }
  } catch {
    // Best effort, as above.
  }
}
