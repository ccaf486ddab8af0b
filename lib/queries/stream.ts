"use client"

import type { QueryClient } from "@tanstack/react-query"
import { useEffect, useSyncExternalStore } from "react"
import type { z } from "zod"
import type * as StreamSchemaModule from "@/lib/schemas/stream"
import { conversionKeys, executionKeys, intentKeys, notificationKeys, quoteKeys, sandboxKeys } from "@/lib/queries/keys"
import { isTerminalStatus } from "@/lib/schemas/constants"

/**
 * One GET /api/stream per tab (issue 37): what the open page would poll for is pushed, and
 * written into the react-query cache (setQueryData). While the stream is live the covered
 * queries stop polling (`useStreamLive`); when it drops they poll again at their usual
 * intervals, the page says its prices are not live, and the stream is opened again (with
 * the id of the last record event it had, so none is missed) until it is back.
 *
 * Pages say what they show with `useStreamInterest` (markets whose quotes, records whose
 * status); the stream is reopened, resuming, when that changes.
 */

export type StreamState = "connecting" | "live" | "down"

interface Interest {
  markets: "all" | readonly string[]
  records: readonly string[]
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

function setState(next: StreamState): void {
  if (state === next) return
  const wasLive = state === "live"
  state = next
  for (const listener of listeners) listener()
  // Polling takes over at once, not at the next interval.
  if (wasLive && client) void client.invalidateQueries({ queryKey: quoteKeys.all })
}

function wantedUrl(): string {
  let all = false
  const markets = new Set<string>()
  const records = new Set<string>()
  for (const interest of interests.values()) {
    if (interest.markets === "all") all = true
    else for (const m of interest.markets) markets.add(m)
    for (const r of interest.records) records.add(r)
  }
  const params = new URLSearchParams()
  if (all) params.set("quotes", "all")
  else if (markets.size > 0) params.set("markets", [...markets].sort().join(","))
  if (records.size > 0) params.set("records", [...records].sort().join(","))
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
    ;(await loadSchemas()).streamReadySchema.parse(data)
    setState("live")
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
    void client.invalidateQueries({ queryKey: event.operation === "create_execution" ? executionKeys.all : conversionKeys.all, predicate: (query) => !shownFinal(query.state.data) })
    void client.invalidateQueries({ queryKey: intentKeys.all })
    if (event.final_status) void client.invalidateQueries({ queryKey: notificationKeys.all })
  })
  on("sandbox", async (data) => {
    const status = (await loadSchemas()).sandboxStatusSchema.parse(data)
    client?.setQueryData(sandboxKeys.status(), status)
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
export function useStreamInterest(markets: "all" | readonly string[], records: readonly string[] = []): void {
  const marketsKey = markets === "all" ? "all" : [...markets].sort().join(",")
  const recordsKey = [...records].sort().join(",")
  useEffect(() => {
    const id = Symbol("interest")
    interests.set(id, { markets: marketsKey === "all" ? "all" : marketsKey.split(",").filter(Boolean), records: recordsKey.split(",").filter(Boolean) })
    reconcile()
    return () => {
      interests.delete(id)
      reconcile()
    }
  }, [marketsKey, recordsKey])
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

/** A polling interval that stops while the stream is live (polling is the fallback). */
export function useStreamedInterval(ms: number): number | false {
  return useStreamState() === "live" ? false : ms
}
