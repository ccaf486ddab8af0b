"use client"

import { skipToken, useQuery } from "@tanstack/react-query"
import { apiFetch, toQuery } from "@/lib/queries/api"
import { intentKeys, searchKeys } from "@/lib/queries/keys"
import { type QueryOptions, gated } from "@/lib/queries/options"
import type { IntentStory, SearchResult } from "@/lib/schemas/search"

// The answers' schemas, loaded with the first answer: pages start without zod.
const searchResultSchema = () => import("@/lib/schemas/search").then((m) => m.searchResultSchema)
const intentStorySchema = () => import("@/lib/schemas/search").then((m) => m.intentStorySchema)
const intentStoriesSchema = () => import("@/lib/schemas/search").then((m) => m.intentStoriesSchema)

/** GET /api/search: what a pasted id or ref_id is. */
export function fetchSearch(q: string, signal?: AbortSignal): Promise<SearchResult> {
  return apiFetch(`/api/search${toQuery({ q })}`, { signal, schema: searchResultSchema })
}

export function useSearchQuery(q: string | null, options?: QueryOptions<SearchResult>) {
  return useQuery({
    retry: false,
    staleTime: 10_000,
    ...options,
    queryKey: searchKeys.query(q ?? ""),
    queryFn: q ? ({ signal }) => fetchSearch(q, signal) : skipToken,
    enabled: gated(Boolean(q), options?.enabled),
  })
}

/** One console intent (GET /api/intents/{id}). */
export function useIntentQuery(id: string | null, options?: QueryOptions<IntentStory>) {
  return useQuery({
    retry: false,
    ...options,
    queryKey: intentKeys.detail(id ?? ""),
    queryFn: id ? ({ signal }) => apiFetch(`/api/intents/${encodeURIComponent(id)}`, { signal, schema: intentStorySchema }) : skipToken,
    enabled: gated(Boolean(id), options?.enabled),
  })
}

/** The console's intents behind a record (GET /api/intents?record_id=); empty when another client placed it. */
export function useRecordIntentsQuery(recordId: string | null, options?: QueryOptions<{ items: IntentStory[] }>) {
  return useQuery({
    ...options,
    queryKey: intentKeys.ofRecord(recordId ?? ""),
    queryFn: recordId ? ({ signal }) => apiFetch(`/api/intents${toQuery({ record_id: recordId })}`, { signal, schema: intentStoriesSchema }) : skipToken,
    enabled: gated(Boolean(recordId), options?.enabled),
  })
}
