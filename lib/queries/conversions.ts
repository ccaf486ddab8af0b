"use client"

import { skipToken, useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { ApiProblemError, apiFetch, toQuery } from "@/lib/queries/api"
import { isApprovalRequest } from "@/lib/queries/approvals"
import { approvalKeys, conversionKeys, profileKeys } from "@/lib/queries/keys"
import { type InfiniteQueryOptions, type MutationOptions, type QueryOptions, gated } from "@/lib/queries/options"
import { withStepUp } from "@/lib/queries/step-up"
import type { EarlierSubmission } from "@/lib/queries/submission"
import type { ConversionCreate } from "@/lib/schemas/conversion"
import { isTerminalStatus } from "@/lib/schemas/constants"
import type { ApprovalRequest } from "@/lib/schemas/approvals"
import type { Conversion, ConversionPage } from "@/lib/schemas/records"
import { useStreamInterest } from "@/lib/queries/stream"

// The answers' schemas, loaded with the first answer: pages start without zod.
const conversionSchema = () => import("@/lib/schemas/records").then((m) => m.conversionSchema)
const conversionPageSchema = () => import("@/lib/schemas/records").then((m) => m.conversionPageSchema)
const conversionOrRequestSchema = () => import("@/lib/queries/response-schemas").then((m) => m.conversionOrRequestSchema)
const conversionLookupSchema = () => import("@/lib/queries/response-schemas").then((m) => m.conversionLookupSchema)

export type ConversionFilters = {
  profile_id?: string | undefined
  ref_id?: string | undefined
  "created_at.begin"?: string | undefined
  "created_at.end"?: string | undefined
  "updated_at.begin"?: string | undefined
  "updated_at.end"?: string | undefined
}

export type ConversionLookupResult = { conversion: Conversion; matched_by: "id" | "ref_id" }

export function fetchConversion(id: string, signal?: AbortSignal): Promise<Conversion> {
  return apiFetch(`/api/conversions/${encodeURIComponent(id)}`, { signal, schema: conversionSchema })
}

/** One conversion by its id, else by its ref_id (the console tries both). */
export function fetchConversionLookup(q: string, signal?: AbortSignal): Promise<ConversionLookupResult> {
  return apiFetch(`/api/conversions/lookup${toQuery({ q })}`, { signal, schema: conversionLookupSchema })
}

/**
 * What became of a conversion submission whose answer never arrived. Only a plain 404 means
 * nothing was placed (the look-up answers 409 while a create with that ref_id is still on
 * its way); anything else leaves the question open.
 */
export async function lookupConversionSubmission(
  refId: string,
  lookup: (q: string) => Promise<ConversionLookupResult> = (q) => fetchConversionLookup(q),
): Promise<EarlierSubmission<Conversion>> {
  try {
    const found = await lookup(refId)
    if (found.conversion.ref_id === refId) return { placed: true, record: found.conversion }
    return { placed: "unknown", error: new Error(`The look-up of ref_id ${refId} found a different conversion; retry the same submission instead.`) }
  } catch (error) {
    if (error instanceof ApiProblemError && error.status === 404) return { placed: false }
    return { placed: "unknown", error }
  }
}

/** One conversion, polled every second until SETTLED or CANCELLED. */
export function useConversionQuery(id: string | null, options?: QueryOptions<Conversion>) {
  // Its status changes are pushed on the tab's stream too: the page asks again the moment the console learns one.
  useStreamInterest([], id ? [id] : [])
  return useQuery({
    refetchInterval: (query) => (query.state.data && isTerminalStatus(query.state.data.status) ? false : 1_000),
    ...options,
    queryKey: conversionKeys.detail(id ?? ""),
    queryFn: id ? ({ signal }) => fetchConversion(id, signal) : skipToken,
    enabled: gated(Boolean(id), options?.enabled),
  })
}

/** The conversion an id or a ref_id names (GET /api/conversions/lookup). */
export function useConversionLookupQuery(q: string | null, options?: QueryOptions<ConversionLookupResult>) {
  return useQuery({
    ...options,
    queryKey: [...conversionKeys.all, "lookup", q ?? ""],
    queryFn: q ? ({ signal }) => fetchConversionLookup(q, signal) : skipToken,
    enabled: gated(Boolean(q), options?.enabled),
  })
}

export function conversionListUrl(filters: ConversionFilters, cursor?: string, limit = 25): string {
  return `/api/conversions${toQuery({ ...filters, limit, page_cursor: cursor })}`
}

export function conversionExportUrl(filters: ConversionFilters): string {
  return `/api/conversions/export${toQuery(filters)}`
}

export function useConversionsInfiniteQuery(filters: ConversionFilters, options?: InfiniteQueryOptions<ConversionPage>) {
  return useInfiniteQuery({
    ...options,
    queryKey: conversionKeys.list(filters),
    queryFn: ({ pageParam, signal }) => apiFetch(conversionListUrl(filters, pageParam), { signal, schema: conversionPageSchema }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_page_cursor || undefined,
    enabled: gated(true, options?.enabled),
  })
}

export type ConversionBody = ConversionCreate & { ref_id: string }

/** The record of a create or a cancel goes into the cache; lists and the profile's balances are read again. */
function useConversionAnswered() {
  const queryClient = useQueryClient()
  return (record: Conversion) => {
    queryClient.setQueryData(conversionKeys.detail(record.id), record)
    void queryClient.invalidateQueries({ queryKey: conversionKeys.all })
    if (record.profile_id) void queryClient.invalidateQueries({ queryKey: profileKeys.balances(record.profile_id) })
  }
}

/** Creates a conversion; the answer is the conversion, or the approval request it became (202). */
export function useCreateConversionMutation(options?: MutationOptions<Conversion | ApprovalRequest, ConversionBody>) {
  const answered = useConversionAnswered()
  const queryClient = useQueryClient()
  return useMutation({
    ...options,
    // An order at or over the policy's step_up_over: the server asks for the passkey, it signs, the order goes again.
    mutationFn: (body: ConversionBody) =>
      withStepUp((stepUp) => apiFetch("/api/conversions", { method: "POST", body: stepUp === undefined ? body : { ...body, step_up: stepUp }, schema: conversionOrRequestSchema })),
    onSuccess: (answer, ...rest) => {
      if (isApprovalRequest(answer)) {
        queryClient.setQueryData(approvalKeys.detail(answer.id), answer)
        void queryClient.invalidateQueries({ queryKey: approvalKeys.all })
      } else answered(answer)
      return options?.onSuccess?.(answer, ...rest)
    },
  })
}

export function useCancelConversionMutation(options?: MutationOptions<Conversion, string>) {
  const answered = useConversionAnswered()
  return useMutation({
    ...options,
    mutationFn: (id: string) => apiFetch(`/api/conversions/${encodeURIComponent(id)}`, { method: "DELETE", schema: conversionSchema }),
    onSuccess: (record, ...rest) => {
      answered(record)
      return options?.onSuccess?.(record, ...rest)
    },
  })
}
