"use client"

import type { QueryClient } from "@tanstack/react-query"
import { useEffect, useSyncExternalStore } from "react"
import type { z } from "zod"
import type * as StreamSchemaModule from "@/lib/schemas/stream"
import type { StreamTopic } from "@/lib/schemas/stream"
import { approvalKeys, conversionKeys, executionKeys, inboxKeys, intentKeys, notificationKeys, overviewKeys, quoteKeys, sandboxKeys } from "@/lib/queries/keys"
import { invalidatePushed } from "@/lib/queries/invalidate"
import { APPROVALS_LIST_LIMIT, isTerminalStatus } from "@/lib/schemas/constants"

/**
 * One GET /api/stream per tab (issue 37): what the open page would poll for is pushed, and
 * written into the react-query cache (setQueryData). While the stream is live the covered
 * queries stop polling (`useStreamLive`); when it drops they poll again at their usual
 * intervals, the page says its prices are not live, and the stream is opened again (with
 * the id of the last record event it had, so none is missed) until it is back.
 *
 * Pages say what they show with `useStreamInterest` (markets whose quotes, records whose
 * status, topics: the inbox, the approvals count, the /approvals list, the overview,
 * notifications); the stream
 * is reopened, resuming, when that changes. A topic's poll stops only once the stream says
 * it carries that topic (`ready`'s `topics`: a role may not read them all).
 */

export type StreamState = "connecting" | "live" | "down"

interface Interest {
  markets: "all" | readonly string[]
  records: readonly string[]
  topics: readonly StreamTopic[]
}

/** The query a pushed topic is written to: that of the route its hook polls. */
const PENDING_FOR_YOU = { state: "PENDING", limit: "1" }
/** The /approvals page's list (lib/queries/approvals.ts). */
export const APPROVALS_LIST = { limit: String(APPROVALS_LIST_LIMIT) }
const TOPIC_KEYS: Record<StreamTopic, readonly unknown[]> = {
  inbox: inboxKeys.mine(),
  approvals: approvalKeys.list(PENDING_FOR_YOU),
  approval_list: approvalKeys.list(APPROVALS_LIST),
  overview: overviewKeys.all,
  notifications: notificationKeys.all,
}

/** How long after a drop the stream is opened again (polling covers the gap). */
export const STREAM_RETRY_MS = 3_000

const interests = new Map<symbol, Interest>()
const listeners = new Set<() => void>()
let state: StreamState = "connecting"
let client: QueryClient | null = null
let source: EventSource | null = null
let openUrl: string | null = null
let lastEventId: string | null = null
let retry: ReturnType<typeof setTimeout> | null = null
let reconcileTimer: ReturnType<typeof setTimeout> | null = null
let users = 0
/** The topics the live stream carries (empty while it is not live). */
let carried: ReadonlySet<StreamTopic> = new Set()
let carriedKey = ""
/** A record query's answer that is already final (SETTLED, CANCELLED, …): nothing more to ask for. */
function shownFinal(data: unknown): boolean {
  const status = data !== null && typeof data === "object" && "status" in data ? data.status : undefined
  return typeof status === "string" && isTerminalStatus(status)
}

/** The last record status change pushed: "<record id> <final status or state>" (the e2e tests read it). */
let lastRecord = ""

type StreamSchemas = typeof StreamSchemaModule
type QuoteSnapshot = z.infer<typeof StreamSchemaModule.quoteSnapshotSchema>
let schemas: Promise<StreamSchemas> | null = null
// Loaded with the first event: the pages start without zod.
const loadSchemas = () => (schemas ??= import("@/lib/schemas/stream"))

function setState(next: StreamState, topics: readonly StreamTopic[] = []): void {
  const nextKey = next === "live" ? [...topics].sort().join(",") : ""
  if (state === next && carriedKey === nextKey) return
  const wasLive = state === "live"
  const wasCarried = carried
  state = next
  carried = new Set(next === "live" ? topics : [])
  carriedKey = nextKey
  for (const listener of listeners) listener()
  if (!client) return
  // Polling takes over at once, not at the next interval.
  if (wasLive && next !== "live") void client.invalidateQueries({ queryKey: quoteKeys.all })
  for (const topic of wasCarried) if (!carried.has(topic)) void client.invalidateQueries({ queryKey: TOPIC_KEYS[topic] })
}

function wantedUrl(): string {
  let all = false
  const markets = new Set<string>()
  const records = new Set<string>()
  const topics = new Set<StreamTopic>()
  for (const interest of interests.values()) {
    if (interest.markets === "all") all = true
    else for (const m of interest.markets) markets.add(m)
    for (const r of interest.records) records.add(r)
    for (const t of interest.topics) topics.add(t)
  }
  const params = new URLSearchParams()
  if (all) params.set("quotes", "all")
  else if (markets.size > 0) params.set("markets", [...markets].sort().join(","))
  if (records.size > 0) params.set("records", [...records].sort().join(","))
  if (topics.size > 0) params.set("topics", [...topics].sort().join(","))
  const query = params.toString()
  return `/api/stream${query ? `?${query}` : ""}`
}

function close(): void {
  source?.close()
  source = null
  openUrl = null
}

function open(url: string): void {
  close()
  if (retry) clearTimeout(retry)
  retry = null
  const resume = lastEventId ? `${url.includes("?") ? "&" : "?"}last_event_id=${encodeURIComponent(lastEventId)}` : ""
  const es = new EventSource(url + resume, { withCredentials: true })
  source = es
  openUrl = url
  const on = (name: string, handle: (data: unknown, event: MessageEvent<string>) => void | Promise<void>) =>
    es.addEventListener(name, (event: MessageEvent<string>) => {
      if (source !== es) return
      if (event.lastEventId) lastEventId = event.lastEventId
      let data: unknown
      try {
        data = JSON.parse(event.data)
      } catch {
        return
      }
      void Promise.resolve(handle(data, event)).catch(() => undefined)
    })
  on("ready", async (data) => {
    const ready = (await loadSchemas()).streamReadySchema.parse(data)
    setState("live", ready.topics)
    // Notifications are pushed from the stream's start: what came between the last poll (or
    // the previous stream) and then is asked for once.
    if (ready.topics.includes("notifications")) void client?.invalidateQueries({ queryKey: notificationKeys.all })
  })
  on("quotes", async (data) => {
    const snapshot = (await loadSchemas()).quoteSnapshotSchema.parse(data)
    writeQuotes(snapshot)
  })
  on("record", async (data) => {
    const event = (await loadSchemas()).recordStatusEventSchema.parse(data)
    lastRecord = `${event.record_id ?? event.intent_id} ${event.final_status ?? event.state}`
    for (const listener of listeners) listener()
    if (!client) return
    // The record's own query asks again now (its page shows the new status), as do the lists;
    // a record already shown final is not asked again (a later change, such as the final
    // status stored on its intent, moves nothing on it).
    // A fetch in flight (a person's Load more) is not cancelled: see invalidatePushed.
    void invalidatePushed(client, { queryKey: event.operation === "create_execution" ? executionKeys.all : conversionKeys.all, predicate: (query) => !shownFinal(query.state.data) })
    void invalidatePushed(client, { queryKey: intentKeys.all })
    if (event.final_status && !carried.has("notifications")) void client.invalidateQueries({ queryKey: notificationKeys.all })
  })
  on("sandbox", async (data) => {
    const status = (await loadSchemas()).sandboxStatusSchema.parse(data)
    client?.setQueryData(sandboxKeys.status(), status)
  })
  on("inbox", async (data) => {
    const inbox = (await loadSchemas()).STREAM_EVENT_SCHEMAS.inbox.parse(data)
    client?.setQueryData(inboxKeys.mine(), inbox)
  })
  on("approvals", async (data) => {
    const page = (await loadSchemas()).STREAM_EVENT_SCHEMAS.approvals.parse(data)
    client?.setQueryData(approvalKeys.list(PENDING_FOR_YOU), page)
  })
  on("approval_list", async (data) => {
    const page = (await loadSchemas()).STREAM_EVENT_SCHEMAS.approval_list.parse(data)
    client?.setQueryData(approvalKeys.list(APPROVALS_LIST), page)
  })
  on("overview", async (data) => {
    const overview = (await loadSchemas()).STREAM_EVENT_SCHEMAS.overview.parse(data)
    client?.setQueryData(overviewKeys.all, overview)
  })
  on("notifications", async (data) => {
    const page = (await loadSchemas()).STREAM_EVENT_SCHEMAS.notifications.parse(data)
    // A hidden tab leaves them to the tab the person looks at (as a hidden tab does not poll);
    // it asks for them itself when it is shown again (the query refetches on focus).
    if (document.visibilityState === "hidden") return
    // The person's feed query (keyed by the browser's store of what it has shown), as a poll's answer.
    for (const query of client?.getQueryCache().findAll({ queryKey: notificationKeys.all }) ?? []) client?.setQueryData(query.queryKey, page)
  })
  on("end", () => {
    // The session is over or the instance is stopping: the next open (elsewhere) decides.
    drop()
  })
  es.onerror = () => {
    if (source !== es) return
    drop()
  }
}

/** The stream is gone: polling resumes, and it is opened again a little later. */
function drop(): void {
  close()
  setState("down")
  if (retry || users === 0) return
  retry = setTimeout(() => {
    retry = null
    if (users > 0) open(wantedUrl())
  }, STREAM_RETRY_MS)
}

/** Each quotes query the stream covers gets the pushed quotes of its markets. */
function writeQuotes(snapshot: QuoteSnapshot): void {
  if (!client) return
  for (const query of client.getQueryCache().findAll({ queryKey: quoteKeys.all })) {
    const key = query.queryKey[1]
    if (typeof key !== "string") continue
    const markets = key ? new Set(key.split(",")) : null
    const items = markets ? snapshot.items.filter((q) => markets.has(q.market)) : snapshot.items
    if (markets && items.length === 0) continue
    client.setQueryData<QuoteSnapshot>(query.queryKey, { ...snapshot, items })
  }
}

function reconcile(): void {
  if (reconcileTimer) return
  reconcileTimer = setTimeout(() => {
    reconcileTimer = null
    if (users === 0 || retry) return
    const url = wantedUrl()
    if (url !== openUrl) open(url)
  }, 50)
}

/** Opens the tab's stream for as long as the component is mounted (once, in the console's layout). */
export function useConsoleStream(queryClient: QueryClient): void {
  useEffect(() => {
    if (typeof EventSource === "undefined") return
    client = queryClient
    users++
    reconcile()
    return () => {
      users--
      if (users > 0) return
      if (retry) clearTimeout(retry)
      retry = null
      close()
      setState("connecting")
    }
  }, [queryClient])
}

/** What the page shows, pushed while it is mounted. */
export function useStreamInterest(markets: "all" | readonly string[], records: readonly string[] = [], topics: readonly StreamTopic[] = []): void {
  const marketsKey = markets === "all" ? "all" : [...markets].sort().join(",")
  const recordsKey = [...records].sort().join(",")
  const topicsKey = [...topics].sort().join(",")
  useEffect(() => {
    const id = Symbol("interest")
    interests.set(id, {
      markets: marketsKey === "all" ? "all" : marketsKey.split(",").filter(Boolean),
      records: recordsKey.split(",").filter(Boolean),
      topics: topicsKey.split(",").filter(Boolean) as StreamTopic[],
    })
    reconcile()
    return () => {
      interests.delete(id)
      reconcile()
    }
  }, [marketsKey, recordsKey, topicsKey])
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

/** The stream's state: "live" turns the covered queries' polling off. */
export function useStreamState(): StreamState {
  return useSyncExternalStore(
    subscribe,
    () => state,
    () => "connecting",
  )
}

/** The last record status change pushed to this tab, as "<record id> <status>". */
export function useLastPushedRecord(): string {
  return useSyncExternalStore(
    subscribe,
    () => lastRecord,
    () => "",
  )
}

/** The topics the live stream carries, as "a,b" (sorted; empty while it is not live). */
export function useStreamTopics(): string {
  return useSyncExternalStore(
    subscribe,
    () => carriedKey,
    () => "",
  )
}

/**
 * A polling interval that stops while the stream is live (polling is the fallback); for a
 * topic, while the live stream carries that topic.
 */
export function useStreamedInterval(ms: number, topic?: StreamTopic): number | false {
  const live = useStreamState() === "live"
  const topics = useStreamTopics()
  if (!live) return ms
  return topic === undefined || topics.split(",").includes(topic) ? false : ms
}
