import "server-only"
import type { Role } from "@/lib/auth/roles"
import type { QuoteSnapshot } from "@/lib/console/quote-cache"
import { sseEvent } from "@/lib/console/stream-frames"
import type { StreamHub, StreamRecordEvent, StreamSubscriber } from "@/lib/console/stream-hub"
import { allowedTopics } from "@/lib/console/stream-topics"
import { log } from "@/lib/log"
import type { StreamTopic } from "@/lib/schemas/stream"

export { sseEvent }

/** A comment line every this often: proxies and load balancers see traffic on a quiet stream. */
export const STREAM_HEARTBEAT_MS = 15_000
/** The session behind a stream is checked again this often (revocation reaches streams too). */
export const STREAM_SESSION_RECHECK_MS = 20_000

export const STREAM_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-store, no-transform",
  connection: "keep-alive",
  // nginx (and load balancers that honour it): pass each event on as it is written.
  "x-accel-buffering": "no",
} as const

/**
 * A snapshot's `quotes` event, checked and serialised once per set of markets, whatever the
 * number of streams it goes to (each stream checking its own copy was most of a push's CPU).
 */
const quoteFrames = new WeakMap<QuoteSnapshot, Map<string, { frame: string; quotes: QuoteSnapshot["quotes"] }>>()

function quotesFrame(snapshot: QuoteSnapshot, markets: ReadonlySet<string> | null): { frame: string; quotes: QuoteSnapshot["quotes"] } {
  const key = markets ? [...markets].sort().join(",") : "*"
  let frames = quoteFrames.get(snapshot)
  if (!frames) quoteFrames.set(snapshot, (frames = new Map<string, { frame: string; quotes: QuoteSnapshot["quotes"] }>()))
  const known = frames.get(key)
  if (known) return known
  const quotes = markets ? snapshot.quotes.filter((q) => markets.has(q.market)) : snapshot.quotes
  const made = {
    quotes,
    frame: sseEvent("quotes", { items: quotes, markets: snapshot.markets, fetched_at: new Date(snapshot.fetchedAt).toISOString(), stale: snapshot.stale }),
  }
  frames.set(key, made)
  return made
}

export interface OpenStreamOptions {
  hub: StreamHub
  email: string
  /** The person's role: which of the asked-for topics the stream carries (default viewer). */
  role?: Role
  /** The inbox, the approvals count and list, the overview, notifications (lib/console/stream-topics.ts). */
  topics?: readonly StreamTopic[]
  /** Markets whose quotes to push; "all" for every market. */
  markets: "all" | readonly string[]
  records: readonly string[]
  /** The Last-Event-ID the browser resumes from; null for a new stream. */
  lastEventId: number | null
  /** The request's signal: the browser went away. */
  signal: AbortSignal
  /** Whether the session is still valid (the same check as each request's); false ends the stream. */
  sessionValid: () => Promise<boolean>
  /** Quotes as they are served to this person (a trader's served quotes are remembered: lib/console/served-quotes.ts). */
  served?: (snapshot: QuoteSnapshot, quotes: QuoteSnapshot["quotes"]) => void
  heartbeatMs?: number
  recheckMs?: number
  /** Told once when the stream is over, whatever ended it. */
  onClose?: (reason: "aborted" | "session_ended" | "shutting_down" | "failed") => void
}

/**
 * The body of one GET /api/stream: subscribes to the instance's hub, sends `ready` (the id
 * to resume from), then, on a resume, exactly the record events after Last-Event-ID that
 * the stream missed, then the live ones. A heartbeat comment every `heartbeatMs`; the
 * session checked every `recheckMs` (a session that is over ends the stream with an `end`
 * event). On abort, cancel or end, every timer and the hub subscription are released.
 */
export function openStream(options: OpenStreamOptions): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  const heartbeatMs = options.heartbeatMs ?? STREAM_HEARTBEAT_MS
  const recheckMs = options.recheckMs ?? STREAM_SESSION_RECHECK_MS
  const allMarkets = options.markets === "all"
  const markets = new Set(options.markets === "all" ? [] : options.markets)
  let controller: ReadableStreamDefaultController<Uint8Array> | null = null
  let closed = false
  let leave: (() => void) | null = null
  let heartbeat: ReturnType<typeof setInterval> | null = null
  let recheck: ReturnType<typeof setInterval> | null = null
  /** Record events are sent only past this id: a resume's replay and the live ones never repeat. */
  let sentId = options.lastEventId ?? 0
  /** Live record events that arrive while the replay is being read, sent after it. */
  let held: StreamRecordEvent[] | null = [] as StreamRecordEvent[]

  function write(text: string): void {
    if (closed || !controller) return
    try {
      controller.enqueue(encoder.encode(text))
    } catch {
      close("aborted")
    }
  }

  function sendRecord(event: StreamRecordEvent): void {
    if (event.id <= sentId) return
    sentId = event.id
    write(sseEvent("record", event.data, event.id))
  }

  function close(reason: "aborted" | "session_ended" | "shutting_down" | "failed"): void {
    if (closed) return
    if (reason === "session_ended" || reason === "shutting_down") write(sseEvent("end", { reason }))
    closed = true
    if (heartbeat) clearInterval(heartbeat)
    if (recheck) clearInterval(recheck)
    heartbeat = recheck = null
    options.signal.removeEventListener("abort", onAbort)
    leave?.()
    leave = null
    held = null
    if (reason !== "aborted") {
      try {
        controller?.close()
      } catch {
        // Already closed by the reader.
      }
    }
    options.onClose?.(reason)
  }

  function onAbort(): void {
    close("aborted")
  }

  const topics = allowedTopics(options.role ?? "viewer", options.topics ?? [])
  const subscriber: StreamSubscriber = {
    email: options.email,
    staff: { email: options.email, role: options.role ?? "viewer" },
    topics: new Set(topics),
    send(frame) {
      write(frame)
    },
    markets,
    allMarkets,
    records: new Set(options.records),
    quotes(snapshot) {
      const { frame, quotes } = quotesFrame(snapshot, allMarkets ? null : markets)
      options.served?.(snapshot, quotes)
      write(frame)
    },
    record(event) {
      if (held) held.push(event)
      else sendRecord(event)
    },
    sandbox(status) {
      write(sseEvent("sandbox", status))
    },
    end() {
      close("shutting_down")
    },
  }

  async function begin(): Promise<void> {
    if (options.signal.aborted) return close("aborted")
    options.signal.addEventListener("abort", onAbort)
    const joined = await options.hub.subscribe(subscriber)
    if (closed) return joined.leave()
    leave = joined.leave
    const resumeFrom = options.lastEventId
    write(`retry: 2000\n`)
    write(sseEvent("ready", { last_event_id: String(resumeFrom ?? joined.cursor), heartbeat_ms: heartbeatMs, session_recheck_ms: recheckMs, topics }, resumeFrom ?? joined.cursor))
    if (resumeFrom === null) sentId = joined.cursor
    else for (const event of await options.hub.replay(subscriber, resumeFrom, joined.cursor)) sendRecord(event)
    const live = held ?? []
    held = null
    for (const event of live) sendRecord(event)
    heartbeat = setInterval(() => write(`: heartbeat ${Date.now()}\n\n`), heartbeatMs)
    heartbeat.unref?.()
    recheck = setInterval(() => {
      options
        .sessionValid()
        .then((valid) => {
          if (!valid) close("session_ended")
        })
        // The database not answering is not the session ending: the next check decides.
        .catch(() => undefined)
    }, recheckMs)
    recheck.unref?.()
  }

  return new ReadableStream<Uint8Array>({
    start(c) {
      controller = c
      begin().catch((error: unknown) => {
        log.warn("stream.open_failed", { error: error instanceof Error ? error.message : String(error) })
        close("failed")
      })
    },
    cancel() {
      close("aborted")
    },
  })
}
