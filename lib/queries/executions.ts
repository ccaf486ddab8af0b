"use client"

import { skipToken, useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { ApiProblemError, apiFetch, toQuery } from "@/lib/queries/api"
import { isApprovalRequest } from "@/lib/queries/approvals"
import { approvalKeys, executionKeys, profileKeys } from "@/lib/queries/keys"
import { type InfiniteQueryOptions, type MutationOptions, type QueryOptions, gated } from "@/lib/queries/options"
import { useRefreshWhenEnded } from "@/lib/queries/settle"
import { withStepUp } from "@/lib/queries/step-up"
import type { EarlierSubmission } from "@/lib/queries/submission"
import type { QuoteExecutionCreate } from "@/lib/schemas/quote-execution"
import { isTerminalStatus } from "@/lib/schemas/constants"
import type { ApprovalRequest } from "@/lib/schemas/approvals"
import type { Quote, QuoteExecution, QuoteExecutionPage } from "@/lib/schemas/records"
import { useStreamInterest } from "@/lib/queries/stream"

// The answers' schemas, loaded with the first answer: pages start without zod.
const quoteExecutionSchema = () => import("@/lib/schemas/records").then((m) => m.quoteExecutionSchema)
const executionOrRequestSchema = () => import("@/lib/queries/response-schemas").then((m) => m.executionOrRequestSchema)
const quoteExecutionPageSchema = () => import("@/lib/schemas/records").then((m) => m.quoteExecutionPageSchema)

export type ExecutionFilters = {
  market?: string | undefined
  side?: string | undefined
  status?: string | undefined
  "created_at.begin"?: string | undefined
  "created_at.end"?: string | undefined
}

const base = (profileId: string) => `/api/profiles/${encodeURIComponent(profileId)}/quote-executions`

export function fetchExecution(profileId: string, id: string, signal?: AbortSignal): Promise<QuoteExecution> {
  return apiFetch(`${base(profileId)}/${encodeURIComponent(id)}`, { signal, schema: quoteExecutionSchema })
}

/** One execution, polled every second until it is SETTLED, then left alone. */
export function useExecutionQuery(profileId: string | null, id: string | null, options?: QueryOptions<QuoteExecution>) {
  // Its status changes are pushed on the tab's stream too: the page asks again the moment the console learns one.
  useStreamInterest([], id ? [id] : [])
  return useQuery({
    refetchInterval: (query) => (query.state.data && isTerminalStatus(query.state.data.status) ? false : 1_000),
    ...options,
    queryKey: executionKeys.detail(profileId ?? "", id ?? ""),
    queryFn: profileId && id ? ({ signal }) => fetchExecution(profileId, id, signal) : skipToken,
    enabled: gated(Boolean(profileId && id), options?.enabled),
  })
}

/** When a watched execution settles, the profile's balances and the execution lists are read again at once. */
export function useRefreshOnSettle(profileId: string | null, status: string | undefined): void {
  useRefreshWhenEnded(status, profileId ? [profileKeys.balances(profileId), [...executionKeys.all, "list"]] : [[...executionKeys.all, "list"]])
}

export function executionListUrl(profileId: string, filters: ExecutionFilters, cursor?: string, limit = 25): string {
  return `${base(profileId)}${toQuery({ ...filters, limit, page_cursor: cursor })}`
}

export function executionExportUrl(profileId: string, filters: ExecutionFilters): string {
  return `${base(profileId)}/export${toQuery(filters)}`
}

export function useExecutionsInfiniteQuery(profileId: string | null, filters: ExecutionFilters, options?: InfiniteQueryOptions<QuoteExecutionPage>) {
  return useInfiniteQuery({
    ...options,
    queryKey: executionKeys.list(profileId ?? "", filters),
    queryFn: profileId
      ? ({ pageParam, signal }) => apiFetch(executionListUrl(profileId, filters, pageParam), { signal, schema: quoteExecutionPageSchema })
      : skipToken,
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_page_cursor || undefined,
    enabled: gated(Boolean(profileId), options?.enabled),
  })
}

/** How far before the send a look-up searches: the browser's clock and the service's may disagree. */
const CLOCK_SKEW_MS = 10 * 60_000
/** At most this many pages of 1000 are searched; past that the look-up cannot tell. */
const LOOKUP_PAGES = 5

/** The console's intent log's answer for an execution's ref_id (GET …/quote-executions/lookup). */
export function fetchExecutionByRefId(profileId: string, refId: string): Promise<QuoteExecution> {
  return apiFetch(`${base(profileId)}/lookup${toQuery({ ref_id: refId })}`, { schema: quoteExecutionSchema })
}

/** A create with no intent this long after it was sent never reached the console (it writes the intent after sizing the order, which may ask the service for the held quote: seconds on a slow day). */
export const NEVER_ARRIVED_MS = 30_000

/**
 * What became of an execution submission whose answer never arrived. The console's intent
 * log is asked first: it has the record once placed, and it alone can say "not placed"
 * (the service refused it). Otherwise (no intent yet, or the log cannot tell) the service
 * has no ref_id filter for executions, so this reads the profile's executions created since
 * just before it was sent and picks the one with the ref_id. Not finding it does not mean
 * it was not placed (the create may still be on its way), so the answer is then "unknown":
 * only sending the same ref_id again settles it, and that is the person's call.
 */
export async function lookupExecutionSubmission(
  profileId: string,
  refId: string,
  sentAt: Date,
  list: (url: string) => Promise<QuoteExecutionPage> = (url) => apiFetch(url, { schema: quoteExecutionPageSchema }),
  ask: (profileId: string, refId: string) => Promise<QuoteExecution> = fetchExecutionByRefId,
  now: () => number = Date.now,
): Promise<EarlierSubmission<QuoteExecution>> {
  let noIntent = false
  try {
    const record = await ask(profileId, refId)
    if (record.ref_id === refId) return { placed: true, record }
  } catch (error) {
    if (error instanceof ApiProblemError && error.status === 404 && error.problem.meta?.placed === false) return { placed: false }
    noIntent = error instanceof ApiProblemError && error.status === 404
    // In flight (409): the same ref_id must be sent again, never a new one.
    if (error instanceof ApiProblemError && error.status === 409) return { placed: "unknown", error }
  }
  try {
    const since = new Date(sentAt.getTime() - CLOCK_SKEW_MS).toISOString()
    let cursor: string | undefined
    for (let page = 0; page < LOOKUP_PAGES; page++) {
      const answer = await list(executionListUrl(profileId, { "created_at.begin": since }, cursor, 1000))
      const found = answer.items.find((e) => e.ref_id === refId)
      if (found) return { placed: true, record: found }
      cursor = answer.next_page_cursor || undefined
      if (!cursor) break
    }
    // The console writes the intent the moment a create reaches it: none, and none listed,
    // long after it was sent (the page that sent it has reloaded since), means it never arrived.
    if (noIntent && now() - sentAt.getTime() >= NEVER_ARRIVED_MS) return { placed: false }
    return {
      placed: "unknown",
      error: new Error(`No execution with ref_id ${refId} is listed yet: it was not placed, or it is still on its way.`),
    }
  } catch (error) {
    return { placed: "unknown", error }
  }
}

export type ExecutionBody = QuoteExecutionCreate & { ref_id: string }

/** The reviewed quote's market, side and price: the console sizes and limits the order by them once newer quotes replaced it. */
export type ReviewedQuote = Pick<Quote, "market" | "side" | "price">

/**
 * Executes a held quote; the caller's ref_id makes retries and double clicks safe. The
 * answer is the execution, or the approval request it became when a second person must approve it.
 */
export function useExecuteQuoteMutation(
  options?: MutationOptions<QuoteExecution | ApprovalRequest, { profileId: string; body: ExecutionBody; reviewed?: ReviewedQuote | undefined }>,
) {
  const queryClient = useQueryClient()
  return useMutation({
    ...options,
    // An order at or over the policy's step_up_over: the server asks for the passkey, it signs, the order goes again.
    mutationFn: ({ profileId, body, reviewed }: { profileId: string; body: ExecutionBody; reviewed?: ReviewedQuote | undefined }) =>
      withStepUp((stepUp) => {
        const sent = reviewed ? { ...body, reviewed_quote: { market: reviewed.market, side: reviewed.side, price: reviewed.price } } : body
        return apiFetch(base(profileId), { method: "POST", body: stepUp === undefined ? sent : { ...sent, step_up: stepUp }, schema: executionOrRequestSchema })
      }),
    onSuccess: (answer, ...rest) => {
      if (isApprovalRequest(answer)) {
        queryClient.setQueryData(approvalKeys.detail(answer.id), answer)
        void queryClient.invalidateQueries({ queryKey: approvalKeys.all })
        return options?.onSuccess?.(answer, ...rest)
      }
      queryClient.setQueryData(executionKeys.detail(answer.profile_id, answer.id), answer)
      void queryClient.invalidateQueries({ queryKey: executionKeys.all })
      void queryClient.invalidateQueries({ queryKey: profileKeys.balances(answer.profile_id) })
      return options?.onSuccess?.(answer, ...rest)
    },
  })
}
