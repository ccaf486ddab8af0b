import "server-only"
import { eq, sql } from "drizzle-orm"
import type { Db } from "@/lib/db/client"
import { sandboxSettings } from "@/lib/db/schema"
import { type FaultRule, type FaultSettings, type FaultSettingsUpdate, faultRuleSchema } from "@/lib/schemas/sandbox-tools"

const ROW_ID = 1
/** Other processes sharing the database see a change within this long. */
const REFRESH_MS = 1000

export interface RuntimeSettings extends FaultSettings {
  version: number
  /** The receiver's key (never answered: see publicSettings). */
  webhook_api_key: string | null
  /** Events created from then on are delivered to the webhook. */
  webhook_since: Date | null
}

interface SettingsDefaults {
  seed: number
  settleDelayMs: number
  quoteTtlMs: number
  rateLimits: boolean
}

/**
 * Runtime settings (faults, settle delay, quote hold time, rate limits), persisted in one row. At start-up
 * the configuration seeds the row; a configuration value that changed since the row was
 * seeded replaces the stored one, while values changed through the admin API survive
 * restarts as long as the configuration stays the same.
 */
export class SettingsStore {
  private cached: RuntimeSettings | undefined
  private loadedAt = 0

  constructor(
    private readonly db: Db,
    private readonly defaults: SettingsDefaults,
  ) {}

  async init(now: Date): Promise<void> {
    const d = this.defaults
    await this.db
      .insert(sandboxSettings)
      .values({
        id: ROW_ID,
        seed: d.seed,
        settleDelayMs: d.settleDelayMs,
        quoteTtlMs: d.quoteTtlMs,
        rateLimits: d.rateLimits,
        rules: [],
        envSeed: d.seed,
        envSettleDelayMs: d.settleDelayMs,
        envQuoteTtlMs: d.quoteTtlMs,
        envRateLimits: d.rateLimits,
        updatedAt: now,
      })
      .onConflictDoNothing()
    const [row] = await this.db.select().from(sandboxSettings).where(eq(sandboxSettings.id, ROW_ID))
    if (!row) throw new Error("sandbox settings row missing")
    const changes: Partial<typeof sandboxSettings.$inferInsert> = {}
    if (row.envSeed !== d.seed) Object.assign(changes, { seed: d.seed, envSeed: d.seed })
    if (row.envSettleDelayMs !== d.settleDelayMs) {
      Object.assign(changes, { settleDelayMs: d.settleDelayMs, envSettleDelayMs: d.settleDelayMs })
    }
    if (row.envQuoteTtlMs !== d.quoteTtlMs) Object.assign(changes, { quoteTtlMs: d.quoteTtlMs, envQuoteTtlMs: d.quoteTtlMs })
    if (row.envRateLimits !== d.rateLimits) Object.assign(changes, { rateLimits: d.rateLimits, envRateLimits: d.rateLimits })
    if (Object.keys(changes).length > 0) {
      await this.db
        .update(sandboxSettings)
        .set({ ...changes, version: sql`${sandboxSettings.version} + 1`, updatedAt: now })
        .where(eq(sandboxSettings.id, ROW_ID))
    }
    await this.refresh()
  }

  /** The settings, re-read from the database at most once a second (wall time, not the sandbox clock). */
  async get(): Promise<RuntimeSettings> {
    if (!this.cached || performance.now() - this.loadedAt >= REFRESH_MS) return this.refresh()
    return this.cached
  }

  async update(patch: FaultSettingsUpdate, now: Date): Promise<RuntimeSettings> {
    const set: Partial<typeof sandboxSettings.$inferInsert> = {}
    if (patch.seed !== undefined) set.seed = patch.seed
    if (patch.settle_delay_ms !== undefined) set.settleDelayMs = patch.settle_delay_ms
    if (patch.quote_ttl_ms !== undefined) set.quoteTtlMs = patch.quote_ttl_ms
    if (patch.rate_limits !== undefined) set.rateLimits = patch.rate_limits
    if (patch.rules !== undefined) set.rules = patch.rules
    if (patch.orchestration_approval !== undefined) set.orchestrationApproval = patch.orchestration_approval
    if (patch.deposit_delay_ms !== undefined) set.depositDelayMs = patch.deposit_delay_ms
    if (patch.webhook_api_key_header !== undefined) set.webhookApiKeyHeader = patch.webhook_api_key_header
    if (patch.webhook_api_key !== undefined) set.webhookApiKey = patch.webhook_api_key
    if (patch.webhook_url !== undefined) {
      set.webhookUrl = patch.webhook_url
      // Events from now on go to the new URL; earlier ones are not replayed to it.
      set.webhookSince = patch.webhook_url === null ? null : now
    }
    await this.db
      .update(sandboxSettings)
      .set({ ...set, version: sql`${sandboxSettings.version} + 1`, updatedAt: now })
      .where(eq(sandboxSettings.id, ROW_ID))
    return this.refresh()
  }

  private async refresh(): Promise<RuntimeSettings> {
    const [row] = await this.db.select().from(sandboxSettings).where(eq(sandboxSettings.id, ROW_ID))
    if (!row) throw new Error("sandbox settings row missing")
    const rules: FaultRule[] = []
    for (const raw of row.rules) {
      const parsed = faultRuleSchema.safeParse(raw)
      if (parsed.success) rules.push(parsed.data)
    }
    this.cached = {
      seed: row.seed,
      settle_delay_ms: row.settleDelayMs,
      quote_ttl_ms: row.quoteTtlMs,
      rate_limits: row.rateLimits,
      rules,
      orchestration_approval: row.orchestrationApproval,
      deposit_delay_ms: row.depositDelayMs,
      webhook_url: row.webhookUrl,
      webhook_api_key_header: row.webhookApiKeyHeader,
      webhook_api_key_set: row.webhookApiKey !== null,
      webhook_api_key: row.webhookApiKey,
      webhook_since: row.webhookSince,
      version: row.version,
    }
    this.loadedAt = performance.now()
    return this.cached
  }
}

export function publicSettings(settings: RuntimeSettings): FaultSettings {
  return {
    seed: settings.seed,
    settle_delay_ms: settings.settle_delay_ms,
    quote_ttl_ms: settings.quote_ttl_ms,
    rate_limits: settings.rate_limits,
    rules: settings.rules,
    orchestration_approval: settings.orchestration_approval,
    deposit_delay_ms: settings.deposit_delay_ms,
    webhook_url: settings.webhook_url,
    webhook_api_key_header: settings.webhook_api_key_header,
    webhook_api_key_set: settings.webhook_api_key_set,
  }
}
