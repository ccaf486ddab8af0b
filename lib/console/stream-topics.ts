import "server-only"
import { type Role, type Staff, roleAtLeast } from "@/lib/auth/roles"
import { sseEvent } from "@/lib/console/stream-frames"
import { errorKind, log } from "@/lib/log"
import type { ApprovalPage } from "@/lib/schemas/approvals"
import type { NotificationEvent, NotificationPage } from "@/lib/schemas/notifications"
import type { Inbox } from "@/lib/schemas/notify"
import type { Overview } from "@/lib/schemas/overview"
import type { StreamTopic } from "@/lib/schemas/stream"

/**
 * The stream's topics besides quotes and record status (issue 37): the inbox, the approvals
 * count, the /approvals page's list, the overview and the notifications, read once per person (or, for the overview,
 * once per view: admins see the unresolved intents) for every stream of this instance that
 * carries them, and sent only when what a stream last got changed.
 *
 * A topic is read again
 * - at once (within `debounceMs`) when the database says it changed: triggers NOTIFY
 *   `console_topics` (migration 0026), heard on every instance whichever one, or which job,
 *   made the change;
 * - every `paceMs[topic]`, for what changes with time alone or notifies nothing: the overview's
 *   prices, a request's expiry (the read ends it), an approval that is not yet the last one
 *   its tier needs (a vote alone changes no request's state), and the person's placements still in flight at the service, which the
 *   notifications read asks the service about (lib/console/notifications.ts): that work, once
 *   done by each tab's poll, is done here once per person while a stream of theirs carries it;
 * - when a stream joins and this instance holds nothing for it yet.
 */

export interface TopicSources {
  inbox(email: string): Promise<Inbox>
  approvals(staff: Staff): Promise<ApprovalPage>
  /** The /approvals page's list as GET /api/approvals?limit=100 answers that person. */
  approvalList(staff: Staff): Promise<ApprovalPage>
  overview(staff: Staff): Promise<Overview>
  /** What the overview shows changed (a deposit processed, maybe on another instance): read the service again. */
  overviewChanged?(): void
  notifications(staff: Staff, since: Date | null): Promise<NotificationPage>
}

/** The role each topic needs: that of the route that polls it. */
export const TOPIC_ROLES: Record<StreamTopic, Role> = { inbox: "viewer", overview: "viewer", approvals: "trader", approval_list: "trader", notifications: "trader" }

/** The polling intervals the pushes replace: a topic is read at least this often while carried. */
export const TOPIC_PACE_MS: Record<StreamTopic, number> = { inbox: 30_000, approvals: 5_000, approval_list: 2_000, overview: 3_000, notifications: 2_500 }

export const TOPIC_CHANNEL = "console_topics"

export interface TopicSubscriber {
  staff: Staff
  topics: ReadonlySet<StreamTopic>
  send(frame: string): void
}

/** Notification events already pushed are remembered this long (the read's cursor trails by a minute). */
const SENT_KEEP_MS = 3 * 60_000

const ALL_TOPICS: readonly StreamTopic[] = ["inbox", "approvals", "approval_list", "overview", "notifications"]

/** Each topic but the notifications (a feed with a cursor, read apart): its read for one person, as the event a stream is sent. */
const TOPIC_FRAMES: { [T in Exclude<StreamTopic, "notifications">]: (sources: TopicSources, staff: Staff) => Promise<string> } = {
  inbox: async (sources, staff) => sseEvent("inbox", await sources.inbox(staff.email)),
  approvals: async (sources, staff) => sseEvent("approvals", await sources.approvals(staff)),
  approval_list: async (sources, staff) => sseEvent("approval_list", await sources.approvalList(staff)),
  overview: async (sources, staff) => sseEvent("overview", await sources.overview(staff)),
}

function keyOf(topic: StreamTopic, staff: Staff): string {
  const email = staff.email.toLowerCase()
  if (topic === "overview") return roleAtLeast(staff.role, "admin") ? "admin" : "staff"
  // The counts waiting are the person's (not their own requests, their role among the tier's).
  if (topic === "approvals" || topic === "approval_list") return `${email}|${staff.role}`
  return email
}

/** Which topics a person may be sent, of those asked for. */
export function allowedTopics(role: Role, asked: readonly StreamTopic[]): StreamTopic[] {
  return ALL_TOPICS.filter((t) => asked.includes(t) && roleAtLeast(role, TOPIC_ROLES[t]))
}

export function createTopicPump(options: {
  sources: TopicSources
  subscribers: () => Iterable<TopicSubscriber>
  paceMs?: Partial<Record<StreamTopic, number>>
  debounceMs?: number
}) {
  const { sources } = options
  const debounceMs = options.debounceMs ?? 25
  /** The frame each stream last got, per topic. */
  const lastSent = new WeakMap<TopicSubscriber, Map<StreamTopic, string>>()
  /** The newest frame per topic and key: a stream that joins gets it at once. */
  const latest = new Map<string, string>()
  /** Per person: the notifications read's cursor and the events already pushed. */
  const feeds = new Map<string, { cursor: Date | null; sent: Map<string, number> }>()
  const dirty = new Map<StreamTopic, Set<string> | "all">()
  const running = new Map<StreamTopic, Promise<void>>()
  let flushTimer: ReturnType<typeof setTimeout> | null = null
  let timers: ReturnType<typeof setInterval>[] = []

  function carriers(topic: StreamTopic, keys: Set<string> | "all"): Map<string, TopicSubscriber[]> {
    const groups = new Map<string, TopicSubscriber[]>()
    for (const sub of options.subscribers()) {
      if (!sub.topics.has(topic)) continue
      const key = keyOf(topic, sub.staff)
      if (keys !== "all" && !keys.has(key)) continue
      const group = groups.get(key)
      if (group) group.push(sub)
      else groups.set(key, [sub])
    }
    return groups
  }

  function deliver(topic: StreamTopic, subs: readonly TopicSubscriber[], frame: string): void {
    for (const sub of subs) {
      let sent = lastSent.get(sub)
      if (!sent) lastSent.set(sub, (sent = new Map<StreamTopic, string>()))
      if (sent.get(topic) === frame) continue
      sent.set(topic, frame)
      sub.send(frame)
    }
  }

  async function readNotifications(key: string, subs: readonly TopicSubscriber[]): Promise<void> {
    let feed = feeds.get(key)
    if (!feed) feeds.set(key, (feed = { cursor: null, sent: new Map() }))
    const page = await sources.notifications(subs[0]!.staff, feed.cursor)
    const now = Date.now()
    const first = feed.cursor === null
    feed.cursor = new Date(page.cursor)
    for (const [id, at] of feed.sent) if (now - at > SENT_KEEP_MS) feed.sent.delete(id)
    const fresh: NotificationEvent[] = page.events.filter((e) => !feed.sent.has(e.id))
    for (const e of fresh) feed.sent.set(e.id, now)
    // The first read only sets the cursor (nothing before the stream is news: the page asked for that itself).
    if (first || fresh.length === 0) return
    const frame = sseEvent("notifications", { ...page, events: fresh })
    for (const sub of subs) sub.send(frame)
  }

  async function read(topic: StreamTopic, keys: Set<string> | "all"): Promise<void> {
    const groups = carriers(topic, keys)
    await Promise.all(
      [...groups].map(async ([key, subs]) => {
        try {
          if (topic === "notifications") return await readNotifications(key, subs)
          const frame = await TOPIC_FRAMES[topic](sources, subs[0]!.staff)
          latest.set(`${topic}|${key}`, frame)
          deliver(topic, subs, frame)
        } catch (error) {
          log.debug("stream.topic_failed", { topic, error: errorKind(error) })
        }
      }),
    )
  }

  function flush(): void {
    flushTimer = null
    for (const [topic, keys] of [...dirty]) {
      if (running.has(topic)) continue
      dirty.delete(topic)
      const run = read(topic, keys).finally(() => {
        running.delete(topic)
        // Marked again while it read: read again.
        if (dirty.has(topic)) schedule()
      })
      running.set(topic, run)
    }
  }

  function schedule(): void {
    if (!flushTimer) flushTimer = setTimeout(flush, debounceMs)
    flushTimer.unref?.()
  }

  function mark(topic: StreamTopic, key?: string): void {
    const now = dirty.get(topic)
    if (key === undefined || now === "all") dirty.set(topic, "all")
    else if (now) now.add(key)
    else dirty.set(topic, new Set([key]))
    schedule()
  }

  return {
    /** A `console_topics` payload (or "*": the listening connection was lost, anything may have changed). */
    notify(payload: string): void {
      const [topic, email] = payload.split(":", 2) as [string, string | undefined]
      if (payload === "*") {
        sources.overviewChanged?.()
        for (const t of ALL_TOPICS) mark(t)
      } else if (topic === "inbox") mark("inbox", email)
      else if (topic === "approvals") {
        mark("approvals")
        mark("approval_list")
        if (email) mark("notifications", email)
      } else if (topic === "overview") {
        sources.overviewChanged?.()
        mark("overview")
        // A placement's state moved: an approved request's placement (sending, placed, failed) may be it.
        mark("approval_list")
      } else if (topic === "notifications" && email) mark("notifications", email)
    },

    /** A stream joined: what this instance holds for it goes at once, the rest is read now. */
    joined(sub: TopicSubscriber): void {
      for (const topic of sub.topics) {
        const key = keyOf(topic, sub.staff)
        const known = latest.get(`${topic}|${key}`)
        if (known) deliver(topic, [sub], known)
        else if (topic !== "notifications" || !feeds.has(key)) mark(topic, key)
      }
    },

    /** A stream left: what no other stream needs is forgotten. */
    left(sub: TopicSubscriber): void {
      const remaining = [...options.subscribers()].filter((s) => s !== sub)
      for (const topic of sub.topics) {
        const key = keyOf(topic, sub.staff)
        if (remaining.some((s) => s.topics.has(topic) && keyOf(topic, s.staff) === key)) continue
        latest.delete(`${topic}|${key}`)
        if (topic === "notifications") feeds.delete(key)
      }
    },

    start(): void {
      if (timers.length > 0) return
      for (const topic of ALL_TOPICS) {
        const t = setInterval(() => mark(topic), options.paceMs?.[topic] ?? TOPIC_PACE_MS[topic])
        t.unref?.()
        timers.push(t)
      }
    },

    stop(): void {
      for (const t of timers) clearInterval(t)
      timers = []
      if (flushTimer) clearTimeout(flushTimer)
      flushTimer = null
      dirty.clear()
      latest.clear()
      feeds.clear()
    },

    /** Reads every topic for every stream now and waits (tests). */
    async settle(): Promise<void> {
      if (flushTimer) {
        clearTimeout(flushTimer)
        flush()
      }
      await Promise.all(running.values())
    },
  }
}

export type TopicPump = ReturnType<typeof createTopicPump>
