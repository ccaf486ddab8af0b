import "server-only"
import { and, asc, eq, lte, notInArray } from "drizzle-orm"
import type { Db } from "@/lib/db/client"
import { sandboxConversions, sandboxExecutions, sandboxOrchestrations } from "@/lib/db/schema"
import type { Conversions } from "@/lib/sandbox/conversions"
import type { Orchestrations } from "@/lib/sandbox/orchestrations"
import type { QuoteExecutions } from "@/lib/sandbox/executions"
import type { SettingsStore } from "@/lib/sandbox/settings"

const BATCH = 200
/** The worker looks for due settlements this often, besides the wake-ups after creates. */
const POLL_MS = 500

/**
 * CREATED → SETTLED (PROCESSING → COMPLETED or FAILED for orchestrations) once a record is `settle_delay_ms` old. The work list is the database
 * (pending rows by created_at), not timers, so settlements pending at a restart complete
 * after it, and a changed delay applies to everything still pending. Each settlement is a
 * conditional update, so two workers never settle one record twice.
 */
export class SettlementWorker {
  private timer: NodeJS.Timeout | undefined
  private readonly wakeUps = new Set<NodeJS.Timeout>()
  private running: Promise<number> | undefined
  private queued: Promise<number> | undefined
  private started = false

  constructor(
    private readonly db: Db,
    private readonly now: () => Date,
    private readonly settings: SettingsStore,
    private readonly records: { executions: QuoteExecutions; conversions: Conversions; orchestrations: Orchestrations },
    private readonly onError: (error: unknown) => void,
  ) {}

  /**
   * One pass: settles everything due when it is called; returns how many records it
   * settled. Passes run one at a time; a call during a pass gets the next pass (shared
   * by every call made meanwhile), which starts after the current one.
   */
  settleDue(): Promise<number> {
    if (this.queued) return this.queued
    if (!this.running) {
      this.running = this.pass().finally(() => {
        this.running = undefined
      })
      return this.running
    }
    const queued = this.running
      .catch(() => 0)
      .then(() => {
        this.queued = undefined
        this.running = this.pass().finally(() => {
          this.running = undefined
        })
        return this.running
      })
    this.queued = queued
    return queued
  }

  /**
   * A record whose settlement fails (its transaction rolls back, it stays CREATED) is
   * reported and skipped for the rest of the pass: the records due after it still settle,
   * and the next pass tries it again.
   */
  private async pass(): Promise<number> {
    const { settle_delay_ms: delay } = await this.settings.get()
    const { executions, conversions, orchestrations } = this.records
    const kinds = [
      { table: sandboxExecutions, pending: "CREATED" as const, records: executions, failed: [] as string[] },
      { table: sandboxConversions, pending: "CREATED" as const, records: conversions, failed: [] as string[] },
      { table: sandboxOrchestrations, pending: "PROCESSING" as const, records: orchestrations, failed: [] as string[] },
    ]
    let settled = 0
    for (;;) {
      const now = this.now()
      const cutoff = new Date(now.getTime() - delay)
      const due: { id: string }[][] = []
      for (const { table, pending, failed } of kinds) due.push(await dueIds(this.db, table, pending, cutoff, failed))
      for (const [index, { records, failed }] of kinds.entries()) {
        for (const { id } of due[index] ?? []) {
          try {
            if (await records.settle(id, now)) settled++
          } catch (error) {
            failed.push(id)
            this.onError(new SettlementError(id, error))
          }
        }
      }
      if (due.every((rows) => rows.length < BATCH)) return settled
    }
  }

  start(): void {
    if (this.started) return
    this.started = true
    // Settlements left pending by the previous process are due now, or soon.
    this.settleDue().catch(this.onError)
    const loop = () => {
      this.timer = setTimeout(() => {
        this.settleDue()
          .catch(this.onError)
          .finally(() => {
            if (this.started) loop()
          })
      }, POLL_MS)
      this.timer.unref()
    }
    loop()
  }

  /** After a create: a pass when the new record falls due, so short delays are honoured closely. */
  wakeAfter(ms: number): void {
    if (!this.started) return
    const timer = setTimeout(() => {
      this.wakeUps.delete(timer)
      this.settleDue().catch(this.onError)
    }, ms + 5)
    timer.unref()
    this.wakeUps.add(timer)
  }

  async stop(): Promise<void> {
    this.started = false
    if (this.timer) clearTimeout(this.timer)
    for (const timer of this.wakeUps) clearTimeout(timer)
    this.wakeUps.clear()
    await this.queued?.catch(() => undefined)
    await this.running?.catch(() => undefined)
  }
}

/** A batch of `table`'s records due: `pending` since `cutoff` or before, oldest first, except those that failed this pass. */
function dueIds(db: Db, table: typeof sandboxExecutions | typeof sandboxConversions | typeof sandboxOrchestrations, pending: "CREATED" | "PROCESSING", cutoff: Date, failed: string[]) {
  return db
    .select({ id: table.id })
    .from(table)
    .where(and(eq(table.status, pending), lte(table.createdAt, cutoff), failed.length > 0 ? notInArray(table.id, failed) : undefined))
    .orderBy(asc(table.createdAt))
    .limit(BATCH)
}

/** One record's settlement failed; `cause` says why. */
export class SettlementError extends Error {
  override name = "SettlementError"
  constructor(
    readonly recordId: string,
    cause: unknown,
  ) {
    super(`settling ${recordId} failed: ${cause instanceof Error ? cause.message : "unknown error"}`, { cause })
  }
}
