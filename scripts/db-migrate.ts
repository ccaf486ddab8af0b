// npm run db:migrate - applies lib/db/migrations to DATABASE_URL, or to the PGlite
// database under DATA_DIR. The server also does this on start.
import { getDatabase } from "@/lib/db/client"
import { ConfigError, env } from "@/lib/env"

try {
  const config = env()
  const database = await getDatabase({ url: config.databaseUrl, dataDir: config.dataDir })
  console.log(`migrations applied (${database.driver}${config.databaseUrl ? "" : ` under ${config.dataDir}`})`)
  await database.close()
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : `migration failed: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(1)
}
