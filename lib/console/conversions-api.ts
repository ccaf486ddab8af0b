import "server-only"
import { eq } from "drizzle-orm"
import type { Staff } from "@/lib/auth/roles"
import type { Db } from "@/lib/db/client"
import { consoleSettings } from "@/lib/db/schema"
import { env } from "@/lib/env"
import { log } from "@/lib/log"
import { type ConversionsApi, isConversionsApi } from "@/lib/schemas/constants"

const KEY = "conversions_api"
/** How long an instance keeps the choice before reading it again (another instance may change it). */
const TTL_MS = 2_000

const cache = globalThis as unknown as { __conversionsApi?: { at: number; value: ConversionsApi } }

/**
 * The service's conversion API the conversions desk uses now. Against the real service it
 * is UPSTREAM_CONVERSIONS_API. In sandbox mode an admin may switch it for a demo: the
 * choice is kept in the database, so every instance follows it.
 */
export async function currentConversionsApi(db: Db): Promise<ConversionsApi> {
  const configured = env().conversionsApi
  if (env().mode !== "sandbox") return configured
  const cached = cache.__conversionsApi
  if (cached && performance.now() - cached.at < TTL_MS) return cached.value
  const [row] = await db.select({ value: consoleSettings.value }).from(consoleSettings).where(eq(consoleSettings.key, KEY))
  const value = isConversionsApi(row?.value) ? row.value : configured
  cache.__conversionsApi = { at: performance.now(), value }
  return value
}

/** Sandbox mode only (the caller checks): switches the desk's conversion API for every instance. */
export async function switchConversionsApi(db: Db, staff: Staff, api: ConversionsApi): Promise<ConversionsApi> {
  const now = new Date()
  await db
    .insert(consoleSettings)
    .values({ key: KEY, value: api, updatedAt: now, updatedBy: staff.email })
    .onConflictDoUpdate({ target: consoleSettings.key, set: { value: api, updatedAt: now, updatedBy: staff.email } })
  cache.__conversionsApi = { at: performance.now(), value: api }
  log.info("sandbox.conversions_api_switched", { staff: staff.email, api })
  return api
}
