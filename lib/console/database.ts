import "server-only"
import { type Database, getDatabase } from "@/lib/db/client"
import { env } from "@/lib/env"

/** The process's database (PGlite under DATA_DIR, or DATABASE_URL), migrated on first use. */
export function database(): Promise<Database> {
  const config = env()
  return getDatabase({ url: config.databaseUrl, dataDir: config.dataDir, limits: config.databaseLimits })
}
