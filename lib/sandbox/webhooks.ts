import { Repeater } from "@/lib/sandbox/repeater"
import "server-only"
import { and, asc, eq, gte, isNull, lte, or, sql } from "drizzle-orm"
import type { Db } from "@/lib/db/client"
import { type SandboxEventRow, sandboxEvents } from "@/lib/db/schema"
import { type FaultInjector, sleep } from "@/lib/sandbox/faults"
import type { SettingsStore } from "@/lib/sandbox/settings"

const BATCH = 20
const POLL_MS = 250
/** A delivery in flight holds its event this long; a process that died mid-delivery leaves it due again after. */
const LEASE_MS = 30_000
const TIMEOUT_MS = 5_000
const FIRST_RETRY_MS = 1_000
const MAX_RETRY_MS = 3_600_000
/** The service retries a failed delivery for 24 hours. */
const GIVE_UP_AFTER_MS = 24 * 3_600_000

export type WebhookSend = (url: string, init: RequestInit) => Promise<Response>

/** The wait before attempt `n + 1` after `n` failed ones: 1 s, 2 s, 4 s, … at most an hour. */
export function retryDelayMs(failedAttempts: number): number {
  return Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, failedAttempts - 1))
}

/**
 * Webhooks, as the service sends them: for each event created since the webhook URL was
 * set, one POST of `{id, type, created_at, source: "com.paxos"}` (never the object: the
 * receiver reads the event), with the configured API-key header. A failed delivery (no
 * 2xx, an error, 5 s without an answer) is retried with backoff for 24 h; the event's
 * `undelivered_webhooks` counts it meanwhile. The work list is the events table, claimed
 * by a conditional update, so instances sharing the database never deliver one twice at once.
 */
export class WebhookWorker {
  private running: Promise<number> | undefined
  private readonly repeater = new Repeater(
    POLL_MS,
    () => this.deliverDue(),
    (error) => this.onError(error),
  )

  constructor(
    private readonly db: Db,
    private readonly now: () => Date,
    private readonly settings: SettingsStore,
    private readonly faults: FaultInjector,
    private readonly send: WebhookSend,
    private readonly lifetime: AbortSignal,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** One pass over the deliveries due; how many succeeded. Passes never overlap. */
  deliverDue(): Promise<number> {
    this.running ??= this.pass().finally(() => {
      this.running = undefined
    })
    return this.running
  }

  private async pass(): Promise<number> {
    const settings = await this.settings.get()
    const url = settings.webhook_url
    if (url === null || settings.webhook_since === null) return 0
    const now = this.now()
    const t = sandboxEvents
    const due = await this.db
      .select()
      .from(t)
      .where(
        and(
          isNull(t.webhookDeliveredAt),
          eq(t.webhookAbandoned, false),
          gte(t.createdAt, settings.webhook_since),
          or(isNull(t.webhookNextAt), lte(t.webhookNextAt, now)),
        ),
      )
      .orderBy(asc(t.createdAt), asc(t.id))
      .limit(BATCH)
    let delivered = 0
    for (const event of due) {
      if (this.lifetime.aborted) break
      if (!(await this.claim(event, now))) continue
      if (await this.deliver(event, url, settings)) delivered++
    }
    return delivered
  }

  private async claim(event: SandboxEventRow, now: Date): Promise<boolean> {
    const t = sandboxEvents
    const claimed = await this.db
      .update(t)
      .set({ webhookNextAt: new Date(now.getTime() + LEASE_MS) })
      .where(
        and(
          eq(t.id, event.id),
          isNull(t.webhookDeliveredAt),
          event.webhookNextAt === null ? isNull(t.webhookNextAt) : eq(t.webhookNextAt, event.webhookNextAt),
        ),
      )
      .returning({ id: t.id })
    return claimed.length > 0
  }

  private async deliver(event: SandboxEventRow, url: string, settings: Awaited<ReturnType<SettingsStore["get"]>>): Promise<boolean> {
    const t = sandboxEvents
    const decision = settings.rules.length > 0 ? this.faults.decide("deliver_webhook", settings) : { latencyMs: 0, outcome: undefined }
    let ok = false
    if (decision.outcome?.kind === "drop") {
      // Lost for good: never sent, never retried; the event counts it as undelivered.
      await this.db.update(t).set({ webhookAbandoned: true, webhookNextAt: null }).where(eq(t.id, event.id))
      return false
    }
    try {
      if (decision.latencyMs > 0) await sleep(decision.latencyMs, this.lifetime)
      if (decision.outcome === undefined) ok = await this.post(event, url, settings)
    } catch {
      ok = false
    }
    const now = this.now()
    if (ok) {
      await this.db.update(t).set({ webhookDeliveredAt: now, webhookNextAt: null }).where(eq(t.id, event.id))
      return true
    }
    const failed = event.webhookAttempts + 1
    const giveUp = now.getTime() - event.createdAt.getTime() >= GIVE_UP_AFTER_MS
    await this.db
      .update(t)
      .set({
        webhookAttempts: sql`${t.webhookAttempts} + 1`,
        webhookNextAt: giveUp ? null : new Date(now.getTime() + retryDelayMs(failed)),
        webhookAbandoned: giveUp,
      })
      .where(eq(t.id, event.id))
    return false
  }

  private async post(event: SandboxEventRow, url: string, settings: Awaited<ReturnType<SettingsStore["get"]>>): Promise<boolean> {
    const headers: Record<string, string> = { "content-type": "application/json" }
    if (settings.webhook_api_key_header && settings.webhook_api_key) headers[settings.webhook_api_key_header.toLowerCase()] = settings.webhook_api_key
    const body = JSON.stringify({ id: event.id, type: event.type, created_at: event.createdAt.toISOString(), source: "com.paxos" })
    const response = await this.send(url, {
      method: "POST",
      headers,
      body,
      redirect: "manual",
      signal: AbortSignal.any([AbortSignal.timeout(TIMEOUT_MS), this.lifetime]),
    })
    await response.body?.cancel().catch(() => undefined)
    return response.status >= 200 && response.status < 300
  }

  start(): void {
    this.repeater.start()
  }

  async stop(): Promise<void> {
    this.repeater.stop()
    await this.running?.catch(() => undefined)
  }
}
