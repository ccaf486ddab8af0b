import { Repeater } from "@/lib/sandbox/repeater"
import "server-only"
import { and, asc, eq, inArray, lte, notInArray } from "drizzle-orm"
import type { Db } from "@/lib/db/client"
import { sandboxConversions, sandboxExecutions, sandboxOrchestrations, sandboxTransfers } from "@/lib/db/schema"
import type { Conversions } from "@/lib/sandbox/conversions"
import { DEPOSIT_TYPES, type Deposits } from "@/lib/sandbox/deposits"
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
  private readonly repeater = new Repeater(
    POLL_MS,
    () => this.settleDue(),
    (error) => this.onError(error),
  )
  private readonly wakeUps = new Set<NodeJS.Timeout>()
  private running: Promise<number> | undefined
  private queued: Promise<number> | undefined

  constructor(
    private readonly db: Db,
    private readonly now: () => Date,
    private readonly settings: SettingsStore,
    private readonly records: { executions: QuoteExecutions; conversions: Conversions; orchestrations: Orchestrations; deposits: Deposits },
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
    const { settle_delay_ms: delay, deposit_delay_ms: depositDelay } = await this.settings.get()
    const { executions, conversions, orchestrations, deposits } = this.records
    const before = (now: Date, ms: number) => new Date(now.getTime() - ms)
    const kinds: { due: (now: Date, failed: string[]) => Promise<{ id: string }[]>; records: { settle(id: string, now: Date): Promise<boolean> }; failed: string[] }[] = [
      { due: (now, failed) => dueIds(this.db, sandboxExecutions, before(now, delay), failed), records: executions, failed: [] },
      { due: (now, failed) => dueIds(this.db, sandboxConversions, before(now, delay), failed), records: conversions, failed: [] },
      { due: (now, failed) => dueOrchestrations(this.db, before(now, delay), failed), records: orchestrations, failed: [] },
      { due: (now, failed) => dueDepositIds(this.db, before(now, depositDelay), failed), records: deposits, failed: [] },
    ]
    let settled = 0
    for (;;) {
      const now = this.now()
      const due: { id: string }[][] = []
      for (const { due: find, failed } of kinds) due.push(await find(now, failed))
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
    if (!this.repeater.start()) return
    // Settlements left pending by the previous process are due now, or soon.
    this.settleDue().catch(this.onError)
  }

  /** After a create: a pass when the new record falls due, so short delays are honoured closely. */
  wakeAfter(ms: number): void {
    if (!this.repeater.started) return
    const timer = setTimeout(() => {
      this.wakeUps.delete(timer)
      this.settleDue().catch(this.onError)
    }, ms + 5)
    timer.unref()
    this.wakeUps.add(timer)
  }

  async stop(): Promise<void> {
    this.repeater.stop()
    for (const timer of this.wakeUps) clearTimeout(timer)
    this.wakeUps.clear()
    await this.queued?.catch(() => undefined)
    await this.running?.catch(() => undefined)
  }
}

/** Orchestrations due: PROCESSING since `cutoff` or before (counted from approval when they waited for one). */
function dueOrchestrations(db: Db, cutoff: Date, failed: string[]) {
  const t = sandboxOrchestrations
  return db
    .select({ id: t.id })
    .from(t)
    .where(and(eq(t.status, "PROCESSING"), lte(t.processingAt, cutoff), failed.length > 0 ? notInArray(t.id, failed) : undefined))
    .orderBy(asc(t.processingAt))
    .limit(BATCH)
}

/** Deposit transfers due: PENDING since `cutoff` or before. */
function dueDepositIds(db: Db, cutoff: Date, failed: string[]) {
  const t = sandboxTransfers
  return db
    .select({ id: t.id })
    .from(t)
    .where(and(eq(t.status, "PENDING"), inArray(t.type, DEPOSIT_TYPES), lte(t.createdAt, cutoff), failed.length > 0 ? notInArray(t.id, failed) : undefined))
    .orderBy(asc(t.createdAt))
    .limit(BATCH)
}

/** A batch of `table`'s records due: CREATED since `cutoff` or before, oldest first, except those that failed this pass. */
function dueIds(db: Db, table: typeof sandboxExecutions | typeof sandboxConversions, cutoff: Date, failed: string[]) {
  return db
    .select({ id: table.id })
    .from(table)
    .where(and(eq(table.status, "CREATED"), lte(table.createdAt, cutoff), failed.length > 0 ? notInArray(table.id, failed) : undefined))
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
