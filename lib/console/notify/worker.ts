import "server-only"
import { and, eq, inArray, sql } from "drizzle-orm"
import { type Outgoing, DeliveryError, SEND_TIMEOUT_MS, sendChat, sendEmail, sendWebhook } from "@/lib/console/notify/channels"
import type { Db } from "@/lib/db/client"
import { queryRows } from "@/lib/db/rows"
import { consoleNotificationChannels, consoleNotificationDeliveries, consoleNotifications } from "@/lib/db/schema"
import { errorKind, log } from "@/lib/log"

/**
 * The one delivery worker of every instance on the database, elected by the lease row of
 * console_notification_worker (id 1) as the event reader is (lib/console/event-lease.ts):
 * taken or renewed each tick, lost after `leaseMs` without renewal. Alone on its database
 * (`solo`, PGlite) it always holds it.
 *
 * A due delivery is claimed before it is sent: its attempt counted and its `next_at` moved
 * past the longest a send may take. Sent, it is marked so; failed, it is tried again after
 * `backoffMs · 2^(attempt-1)` (at most `maxBackoffMs`), and after `maxAttempts` it is parked
 * with its error. A worker that dies mid-send (kill -9) has committed only the claim: once
 * its `next_at` passes, whichever worker holds the lease sends it again. At least once,
 * then, with the delivery's id (`webhook-id`, the email's Message-ID) the same each time,
 * so the receiver drops a repeat.
 */

const DB_NOW = sql`floor(extract(epoch from clock_timestamp()) * 1000)::bigint`

export const NOTIFY_WORKER_DEFAULTS = {
  leaseMs: 15_000,
  batch: 20,
  maxAttempts: 10,
  backoffMs: 2_000,
  maxBackoffMs: 5 * 60_000,
  /** A claimed delivery is not claimed again before this: longer than any one send. */
  claimMs: SEND_TIMEOUT_MS + 5_000,
}

export interface NotificationWorkerOptions {
  db: Db
  id: string
  solo: boolean
  pollMs: number
  /** Where deep links point: the console's public URL. */
  publicUrl: () => string
  smtp: () => { url: string; from: string } | undefined
  leaseMs?: number
  batch?: number
  maxAttempts?: number
  backoffMs?: number
  maxBackoffMs?: number
  claimMs?: number
}

export interface DeliveryReport {
  sent: number
  failed: number
  parked: number
}

export function createNotificationWorker(options: NotificationWorkerOptions) {
  const { db, id, solo } = options
  const d = NOTIFY_WORKER_DEFAULTS
  const o = {
    publicUrl: options.publicUrl,
    smtp: options.smtp,
    leaseMs: options.leaseMs ?? d.leaseMs,
    batch: options.batch ?? d.batch,
    maxAttempts: options.maxAttempts ?? d.maxAttempts,
    backoffMs: options.backoffMs ?? d.backoffMs,
    maxBackoffMs: options.maxBackoffMs ?? d.maxBackoffMs,
    claimMs: options.claimMs ?? d.claimMs,
  }
  let timer: ReturnType<typeof setInterval> | null = null
  let ticking: Promise<DeliveryReport> | null = null
  let holder = solo
  const inFlight = new AbortController()
  /** Abandoned (tests of a crash): nothing more is written, as after kill -9. */
  let dead = false

  async function lease(): Promise<boolean> {
    if (solo) return true
    const [row] = await queryRows<{ holder: string | null }>(
      db,
      sql`update console_notification_worker set
            holder = case when holder = ${id} or lease_until < ${DB_NOW} then ${id} else holder end,
            lease_until = case when holder = ${id} or lease_until < ${DB_NOW} then ${DB_NOW} + ${o.leaseMs} else lease_until end
          where id = 1 returning holder`,
    )
    const was = holder
    holder = row?.holder === id
    if (holder !== was) log.info(holder ? "notify.worker_started" : "notify.worker_stopped", { instance: id })
    return holder
  }

  async function claim(): Promise<{ id: string; notificationId: string; channel: string; target: string; attempts: number }[]> {
    const rows = await queryRows<{ id: string; notification_id: string; channel: string; target: string; attempts: number }>(
      db,
      sql`update console_notification_deliveries set attempts = attempts + 1, next_at = clock_timestamp() + make_interval(secs => ${o.claimMs / 1000})
          where id in (
            select id from console_notification_deliveries
            where state = 'pending' and next_at <= clock_timestamp()
            order by next_at limit ${o.batch} for update skip locked)
          returning id, notification_id, channel, target, attempts`,
    )
    return rows.map((r) => ({ id: r.id, notificationId: r.notification_id, channel: r.channel, target: r.target, attempts: Number(r.attempts) }))
  }

  async function deliver(d: { id: string; notificationId: string; channel: string; target: string; attempts: number }): Promise<"sent" | "failed" | "parked"> {
    try {
      const [n] = await db.select().from(consoleNotifications).where(eq(consoleNotifications.id, d.notificationId))
      if (!n) throw new DeliveryError("the notification is gone")
      const out: Outgoing = {
        deliveryId: d.id,
        notificationId: n.id,
        kind: n.kind,
        title: n.title,
        detail: n.detail,
        link: new URL(n.href, o.publicUrl()).toString(),
        at: n.createdAt,
      }
      if (d.channel === "email") {
        const smtp = o.smtp()
        if (!smtp) throw new DeliveryError("SMTP_URL is not set")
        await sendEmail(smtp, d.target, out)
      } else {
        const [channel] = await db.select().from(consoleNotificationChannels).where(eq(consoleNotificationChannels.id, d.target))
        if (!channel) throw new DeliveryError("the team channel was removed")
        if (channel.type === "chat") await sendChat(channel.url, out, inFlight.signal)
        else await sendWebhook(channel.url, channel.secret ?? "", out, inFlight.signal)
      }
      if (dead) return "failed"
      await db
        .update(consoleNotificationDeliveries)
        .set({ state: "sent", sentAt: new Date(), lastError: null })
        .where(and(eq(consoleNotificationDeliveries.id, d.id), eq(consoleNotificationDeliveries.state, "pending")))
      return "sent"
    } catch (error) {
      if (dead) return "failed"
      const message = error instanceof DeliveryError ? error.message : `could not deliver (${errorKind(error)})`
      const park = d.attempts >= o.maxAttempts
      const wait = Math.min(o.backoffMs * 2 ** (d.attempts - 1), o.maxBackoffMs)
      await db
        .update(consoleNotificationDeliveries)
        .set(park ? { state: "parked", lastError: message } : { lastError: message, nextAt: new Date(Date.now() + wait) })
        .where(and(eq(consoleNotificationDeliveries.id, d.id), eq(consoleNotificationDeliveries.state, "pending")))
      log.warn(park ? "notify.delivery_parked" : "notify.delivery_failed", { delivery: d.id, channel: d.channel, attempts: d.attempts, error: message })
      return park ? "parked" : "failed"
    }
  }

  async function tickOnce(): Promise<DeliveryReport> {
    const report: DeliveryReport = { sent: 0, failed: 0, parked: 0 }
    if (!(await lease())) return report
    const due = await claim()
    const results = await Promise.all(due.map(deliver))
    for (const r of results) report[r]++
    return report
  }

  function tick(): Promise<DeliveryReport> {
    ticking ??= tickOnce()
      .catch((error: unknown) => {
        log.warn("notify.tick_failed", { error: errorKind(error) })
        return { sent: 0, failed: 0, parked: 0 }
      })
      .finally(() => {
        ticking = null
      })
    return ticking
  }

  return {
    holds: () => holder,
    start() {
      if (timer) return
      void tick()
      timer = setInterval(() => void tick(), options.pollMs)
      timer.unref()
    },
    tick,
    async stop() {
      if (timer) clearInterval(timer)
      timer = null
      await ticking
      if (!solo && holder) await db.execute(sql`update console_notification_worker set holder = null, lease_until = 0 where id = 1 and holder = ${id}`)
      holder = solo
    },
    /** Abandons the work in flight without a word to the database (a crash, for tests). */
    abandon() {
      if (timer) clearInterval(timer)
      timer = null
      dead = true
      inFlight.abort()
    },
  }
}

export type NotificationWorker = ReturnType<typeof createNotificationWorker>

/** An admin's retry of parked deliveries: pending again, due now, attempts from zero. Answers how many. */
export async function retryDeliveries(db: Db, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0
  const rows = await db
    .update(consoleNotificationDeliveries)
    .set({ state: "pending", attempts: 0, nextAt: new Date() })
    .where(and(inArray(consoleNotificationDeliveries.id, ids), eq(consoleNotificationDeliveries.state, "parked")))
    .returning({ id: consoleNotificationDeliveries.id })
  return rows.length
}
