import "server-only"
import { sql } from "drizzle-orm"
import type { QuoteSnapshot } from "@/lib/console/quote-cache"
import type { QuoteSource } from "@/lib/console/quote-feed"
import { TOPIC_CHANNEL, type TopicSources, type TopicSubscriber, createTopicPump } from "@/lib/console/stream-topics"
import type { Db } from "@/lib/db/client"
import { queryRows } from "@/lib/db/rows"
import { errorKind, log } from "@/lib/log"
import { type RecordStatusEvent, recordStatusEventSchema } from "@/lib/schemas/stream"
import type { SandboxFaultsStatus } from "@/lib/schemas/sandbox-tools"
import type { StreamTopic } from "@/lib/schemas/stream"

/**
 * One hub per console instance behind every open GET /api/stream (issue 37): the streams
 * subscribe to it, and it does, once for all of them, what each open tab used to ask for:
 *
 * - quotes: while any stream wants quotes, every `quotePaceMs` it reads the instance's
 *   quote source (the one shared poller of every instance, at most one service call per
 *   second: lib/console/quote-feed.ts) and hands each new snapshot to every stream;
 * - record status: the trigger on console_intents writes each change to
 *   console_stream_events and NOTIFYs `console_stream` (migration 0020); the hub LISTENs
 *   (Postgres: every instance hears every instance's changes; PGlite: in-process) and
 *   reads the rows past its cursor, in id order, handing each to the streams it concerns.
 *   A catch-up read every `tailMs` covers a notification lost while the listening
 *   connection was down;
 * - the sandbox's fault status, every `sandboxMs` while anyone listens, sent when it changes;
 * - the topics (the inbox, the approvals count, the overview, notifications): triggers NOTIFY
 *   `console_topics` when what they show changes (migration 0026); the hub LISTENs and reads
 *   each again once per person for all their streams (lib/console/stream-topics.ts).
 *
 * Nothing runs while no stream is open: the timers start with the first subscriber and stop
 * with the last.
 */

export interface StreamRecordEvent {
  /** The row's id in console_stream_events: the SSE `id:`, what Last-Event-ID resumes from. */
  id: number
  staffEmail: string
  recordId: string | null
  data: RecordStatusEvent
}

export interface StreamSubscriber extends TopicSubscriber {
  /** The signed-in person: their own placements' changes are theirs. */
  email: string
  /** Markets whose quotes the stream wants (empty and not `allMarkets`: no quotes). */
  markets: ReadonlySet<string>
  /** Every market's quotes. */
  allMarkets: boolean
  /** Records the page follows, besides the person's own placements. */
  records: ReadonlySet<string>
  quotes(snapshot: QuoteSnapshot): void
  record(event: StreamRecordEvent): void
  sandbox(status: SandboxFaultsStatus): void
  /** The hub is stopping (the instance shuts down): the stream ends, its browser reconnects elsewhere. */
  end(): void
}

export interface StreamHubOptions {
  db: Db
  quotes: Pick<QuoteSource, "get">
  /** LISTEN on the database (Database.listen); without it the hub reads every `tailMs`. */
  listen?: (channel: string, onNotify: (payload: string) => void, onLost?: () => void) => Promise<() => Promise<void>>
  /** The sandbox's fault status, in sandbox mode; null elsewhere. */
  sandboxStatus?: (() => Promise<SandboxFaultsStatus>) | null
  /** What the topics are read from; without it no stream carries a topic. */
  topics?: TopicSources | null
  /** How often each topic is read while carried, besides when it changed (tests). */
  topicPaceMs?: Partial<Record<StreamTopic, number>>
  quotePaceMs?: number
  tailMs?: number
  sandboxMs?: number
  /** Record events are kept this long for resumes, then purged (by any instance, at most once a minute). */
  keepMs?: number
}

export const STREAM_CHANNEL = "console_stream"

const sameEmail = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()

/** Whether a record event is for this stream: the person's own placement, or a record the page follows. */
export function concerns(sub: Pick<StreamSubscriber, "email" | "records">, event: Pick<StreamRecordEvent, "staffEmail" | "recordId">): boolean {
  return sameEmail(sub.email, event.staffEmail) || (event.recordId !== null && sub.records.has(event.recordId))
}

const wantsQuotes = (sub: StreamSubscriber) => sub.allMarkets || sub.markets.size > 0

interface Row {
  id: string | number
  staff_email: string
  record_id: string | null
  payload: unknown
}

function toEvent(row: Row): StreamRecordEvent | null {
  const raw: unknown = typeof row.payload === "string" ? JSON.parse(row.payload) : row.payload
  const parsed = recordStatusEventSchema.safeParse(raw)
  if (!parsed.success) {
    log.warn("stream.record_event_invalid", { id: String(row.id) })
    return null
  }
  return { id: Number(row.id), staffEmail: row.staff_email, recordId: row.record_id, data: parsed.data }
}

export function createStreamHub(options: StreamHubOptions) {
  const { db } = options
  const quotePaceMs = options.quotePaceMs ?? 250
  const tailMs = options.tailMs ?? (options.listen ? 2000 : 250)
  const sandboxMs = options.sandboxMs ?? 5000
  const keepMs = options.keepMs ?? 24 * 60 * 60 * 1000
  const subscribers = new Set<StreamSubscriber>()

  /** The newest record event id handed to the streams: every one up to it has been. */
  let cursor = 0
  let started: Promise<void> | null = null
  let timers: ReturnType<typeof setInterval>[] = []
  let unlisten: (() => Promise<void>) | null = null
  let listening: Promise<void> | null = null
  let tailing: Promise<void> | null = null
  let tailAgain = false
  let pumping = false
  /** The last quotes pushed: "<fetchedAt>|<stale>". */
  let lastQuotesAt: string | null = null
  let latestQuotes: QuoteSnapshot | null = null
  let lastSandbox: string | null = null
  let sandboxNow: SandboxFaultsStatus | null = null
  let purgedAt = 0
  let stopped = false
  const topics = options.topics
    ? createTopicPump({ sources: options.topics, subscribers: () => subscribers, paceMs: options.topicPaceMs })
    : null
  let unlistenTopics: (() => Promise<void>) | null = null
  let listeningTopics: Promise<void> | null = null

  async function newestId(): Promise<number> {
    const [row] = await queryRows<{ id: string | number | null }>(db, sql`select max(id) as id from console_stream_events`)
    return Number(row?.id ?? 0)
  }

  /** Reads the record events past the cursor, in order, and hands each to the streams it concerns. */
  function tail(): Promise<void> {
    if (tailing) {
      tailAgain = true
      return tailing
    }
    tailing = (async () => {
      do {
        tailAgain = false
        const rows = await queryRows<Row>(
          db,
          sql`select id, staff_email, record_id, payload from console_stream_events where id > ${cursor} order by id limit 500`,
        )
        for (const row of rows) {
          cursor = Math.max(cursor, Number(row.id))
          const event = toEvent(row)
          if (!event) continue
          for (const sub of subscribers) if (concerns(sub, event)) sub.record(event)
        }
        if (rows.length === 500) tailAgain = true
      } while (tailAgain && subscribers.size > 0)
    })()
      .catch((error: unknown) => log.warn("stream.tail_failed", { error: error instanceof Error ? error.message : String(error) }))
      .finally(() => {
        tailing = null
      })
    return tailing
  }

  async function pumpQuotes(): Promise<void> {
    if (pumping) return
    let all = false
    const markets = new Set<string>()
    for (const sub of subscribers) {
      all ||= sub.allMarkets
      for (const m of sub.markets) markets.add(m)
    }
    if (!all && markets.size === 0) return
    pumping = true
    try {
      const snapshot = await options.quotes.get(all ? null : [...markets])
      // A new answer, or the same one turned stale (the service stopped answering): both are news.
      const key = `${snapshot.fetchedAt}|${snapshot.stale}`
      if (key === lastQuotesAt) return
      lastQuotesAt = key
      latestQuotes = snapshot
      for (const sub of subscribers) if (wantsQuotes(sub)) sub.quotes(snapshot)
    } catch (error) {
      log.debug("stream.quotes_failed", { error: errorKind(error) })
      // Nothing left to serve: the streams are told that what they hold is stale, as a failed poll would show.
      if (latestQuotes && !latestQuotes.stale) {
        latestQuotes = { ...latestQuotes, stale: true }
        lastQuotesAt = `${latestQuotes.fetchedAt}|true`
        for (const sub of subscribers) if (wantsQuotes(sub)) sub.quotes(latestQuotes)
      }
    } finally {
      pumping = false
    }
  }

  async function pumpSandbox(): Promise<void> {
    if (!options.sandboxStatus) return
    try {
      const status = await options.sandboxStatus()
      const key = JSON.stringify(status)
      sandboxNow = status
      if (key === lastSandbox) return
      lastSandbox = key
      for (const sub of subscribers) sub.sandbox(status)
    } catch (error) {
      log.debug("stream.sandbox_failed", { error: errorKind(error) })
    }
  }

  function purge(): void {
    const t = Date.now()
    if (t - purgedAt < 60_000) return
    purgedAt = t
    db.execute(sql`delete from console_stream_events where at < ${new Date(t - keepMs).toISOString()}::timestamptz`).catch(() => undefined)
  }

  /** Bumped each time the hub goes idle: a start that finishes after that leaves no timer behind. */
  let generation = 0

  function start(): Promise<void> {
    if (started) return started
    const mine = ++generation
    const run = (async () => {
      if (options.listen && !listening) {
        listening = options
          .listen(STREAM_CHANNEL, () => void tail(), () => void tail())
          .then((stop) => {
            if (stopped) void stop()
            else unlisten = stop
          })
          .catch((error: unknown) => {
            listening = null
            log.warn("stream.listen_failed", { error: error instanceof Error ? error.message : String(error) })
          })
      }
      if (options.listen && topics && !listeningTopics) {
        listeningTopics = options
          .listen(TOPIC_CHANNEL, (payload) => topics.notify(payload), () => topics.notify("*"))
          .then((stop) => {
            if (stopped) void stop()
            else unlistenTopics = stop
          })
          .catch((error: unknown) => {
            listeningTopics = null
            log.warn("stream.listen_failed", { channel: TOPIC_CHANNEL, error: error instanceof Error ? error.message : String(error) })
          })
      }
      await listening
      await listeningTopics
      // Everything committed before now is history: a resume reads it from the table.
      cursor = Math.max(cursor, await newestId())
      if (mine !== generation || subscribers.size === 0 || stopped) return
      timers = [setInterval(() => void pumpQuotes(), quotePaceMs), setInterval(() => void tail().then(purge), tailMs)]
      if (options.sandboxStatus) timers.push(setInterval(() => void pumpSandbox(), sandboxMs))
      topics?.start()
      for (const t of timers) t.unref?.()
      void pumpQuotes()
      void pumpSandbox()
    })()
    started = run
    run.catch(() => {
      if (started === run) started = null
    })
    return run
  }

  function idle(): void {
    generation++
    for (const t of timers) clearInterval(t)
    timers = []
    topics?.stop()
    started = null
    lastQuotesAt = null
    latestQuotes = null
    lastSandbox = null
    sandboxNow = null
  }

  return {
    /**
     * Adds a stream. Answers the cursor at that moment (every record event up to it has been
     * handed out before this stream joined; every one after it will be handed to it), and
     * how to leave. The first subscriber starts the hub's work, the last one's leaving stops it.
     */
    async subscribe(sub: StreamSubscriber): Promise<{ cursor: number; leave: () => void }> {
      if (stopped) throw new Error("the stream hub is stopped")
      subscribers.add(sub)
      let left = false
      const leave = () => {
        if (left) return
        left = true
        topics?.left(sub)
        subscribers.delete(sub)
        if (subscribers.size === 0) idle()
      }
      try {
        await start()
      } catch (error) {
        leave()
        throw error
      }
      // The fault status, when known, goes to it at once (a change goes to every stream).
      if (!left && sandboxNow) sub.sandbox(sandboxNow)
      // As do the quotes last pushed, when they cover its markets (the next ones follow within a second).
      if (!left && latestQuotes && wantsQuotes(sub)) sub.quotes(latestQuotes)
      // Its topics: what this instance holds goes at once, the rest is read now.
      if (!left) topics?.joined(sub)
      return { cursor, leave }
    },

    /** The record events after `afterId` up to `upTo` that concern `sub`, in order (a resume). */
    async replay(sub: Pick<StreamSubscriber, "email" | "records">, afterId: number, upTo: number): Promise<StreamRecordEvent[]> {
      if (upTo <= afterId) return []
      const rows = await queryRows<Row>(
        db,
        sql`select id, staff_email, record_id, payload from console_stream_events where id > ${afterId} and id <= ${upTo} order by id limit 5000`,
      )
      return rows.map(toEvent).filter((e): e is StreamRecordEvent => e !== null && concerns(sub, e))
    },

    /** Reads the record events now (a test, or a change this instance just made). */
    poke: (): Promise<void> => tail(),

    /** Reads what the topics' pending changes ask for now and waits (tests). */
    settleTopics: (): Promise<void> => topics?.settle() ?? Promise.resolve(),

    stats(): { subscribers: number; timers: number; cursor: number } {
      return { subscribers: subscribers.size, timers: timers.length, cursor }
    },

    async stop(): Promise<void> {
      stopped = true
      idle()
      const open = [...subscribers]
      subscribers.clear()
      for (const sub of open) sub.end()
      await listening?.catch(() => undefined)
      await unlisten?.()
      unlisten = null
      await listeningTopics?.catch(() => undefined)
      await unlistenTopics?.()
      unlistenTopics = null
    },
  }
}

export type StreamHub = ReturnType<typeof createStreamHub>
