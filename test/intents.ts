import type { SQL } from "drizzle-orm"
import type { PgInsertValue, PgUpdateSetSource } from "drizzle-orm/pg-core"
import type { Db } from "@/lib/db/client"
import { consoleIntents } from "@/lib/db/schema"

/**
 * Intent rows written as they are, for what the console reaches only through time, a
 * crash or a fault (an UNKNOWN create, a row stamped in 2020), and for the table's own
 * constraints. The console itself writes intents only through lib/console/intents.ts.
 */
export type IntentRow = PgInsertValue<typeof consoleIntents>

export function insertIntentRows(db: Db, rows: IntentRow | IntentRow[]) {
  return db
    .insert(consoleIntents)
    .values(Array.isArray(rows) ? rows : [rows])
    .returning()
}

export async function setIntentColumns(db: Db, where: SQL | undefined, set: PgUpdateSetSource<typeof consoleIntents>): Promise<void> {
  await db.update(consoleIntents).set(set).where(where)
}
