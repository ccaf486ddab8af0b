import type { SQL } from "drizzle-orm"
import type { Db } from "@/lib/db/client"

/** The rows of a raw SQL query, on either driver (both answer `{ rows }`); runs it exactly once. */
export async function queryRows<T>(db: Db, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as { rows?: T[] }
  return result.rows ?? []
}
