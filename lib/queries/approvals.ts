"use client"

import { skipToken, useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { apiFetch, toQuery } from "@/lib/queries/api"
import { withStepUp } from "@/lib/queries/step-up"
import { approvalKeys, conversionKeys, executionKeys } from "@/lib/queries/keys"
import { type MutationOptions, type QueryOptions, gated } from "@/lib/queries/options"
import { useStreamInterest, useStreamedInterval } from "@/lib/queries/stream"
import type { ApprovalPage, ApprovalRequest, Policy, PolicyView } from "@/lib/schemas/approvals"

// The answers' schemas, loaded with the first answer: pages start without zod.
const approvalRequestSchema = () => import("@/lib/schemas/approvals").then((m) => m.approvalRequestSchema)
const approvalPageSchema = () => import("@/lib/schemas/approvals").then((m) => m.approvalPageSchema)
const policyViewSchema = () => import("@/lib/schemas/approvals").then((m) => m.policyViewSchema)

/** A create's answer is the record, or (202) the approval request it became. */
export function isApprovalRequest(answer: unknown): answer is ApprovalRequest {
  return typeof answer === "object" && answer !== null && "placement" in answer && "maker" in answer
}

/** A request still moving: waiting for a person, or approved and on its way to the service. */
export function isRequestOpen(request: ApprovalRequest): boolean {
  return request.state === "PENDING" || (request.state === "APPROVED" && request.placement === "SENDING")
}

/** Approval requests, pending first; polled every 2 s so new ones and decisions show up. */
export function useApprovalsQuery(filters: { state?: string | undefined } = {}, options?: QueryOptions<ApprovalPage>) {
  return useQuery({
    refetchInterval: 2_000,
    ...options,
    queryKey: approvalKeys.list(filters),
    queryFn: ({ signal }) => apiFetch(`/api/approvals${toQuery({ ...filters, limit: 100 })}`, { signal, schema: approvalPageSchema }),
    enabled: gated(true, options?.enabled),
  })
}

/** How many pending requests the signed-in approver may decide (everyone's but their own): pushed on the tab's stream, else polled every 5 s. */
export function usePendingForYouQuery(options?: QueryOptions<ApprovalPage>) {
  useStreamInterest([], [], options?.enabled === false ? [] : ["approvals"])
  const interval = useStreamedInterval(5_000, "approvals")
  return useQuery({
    refetchInterval: interval,
    ...options,
    queryKey: approvalKeys.list({ state: "PENDING", limit: "1" }),
    queryFn: ({ signal }) => apiFetch("/api/approvals?state=PENDING&limit=1", { signal, schema: approvalPageSchema }),
    enabled: gated(true, options?.enabled),
  })
}

/** One request, polled every second until it is decided and, if approved, placed or failed. */
export function useApprovalQuery(id: string | null, options?: QueryOptions<ApprovalRequest>) {
  return useQuery({
    refetchInterval: (query) => (query.state.data && !isRequestOpen(query.state.data) ? false : 1_000),
    ...options,
    queryKey: approvalKeys.detail(id ?? ""),
    queryFn: id ? ({ signal }) => apiFetch(`/api/approvals/${encodeURIComponent(id)}`, { signal, schema: approvalRequestSchema }) : skipToken,
    enabled: gated(Boolean(id), options?.enabled),
  })
}

export type ApprovalDecision =
  | { id: string; action: "approve"; comment?: string | undefined }
  | { id: string; action: "reject"; reason: string; comment?: string | undefined }
  | { id: string; action: "withdraw"; comment?: string | undefined }

/** Approve, reject or withdraw; the lists and the record caches are refreshed after. */
export function useDecideApprovalMutation(options?: MutationOptions<ApprovalRequest, ApprovalDecision>) {
  const queryClient = useQueryClient()
  return useMutation({
    ...options,
    mutationFn: async ({ id, action, ...body }: ApprovalDecision) => {
      // STEP_UP=webauthn: the server names what it needs signed; the passkey signs it, and the decision goes again.
      return withStepUp((stepUp) =>
        apiFetch(`/api/approvals/${encodeURIComponent(id)}/${action}`, { method: "POST", body: stepUp ? { ...body, step_up: stepUp } : body, schema: approvalRequestSchema }),
      )
    },
    onSuccess: (request, ...rest) => {
      queryClient.setQueryData(approvalKeys.detail(request.id), request)
      void queryClient.invalidateQueries({ queryKey: approvalKeys.all })
      void queryClient.invalidateQueries({ queryKey: request.kind === "execution" ? executionKeys.all : conversionKeys.all })
      return options?.onSuccess?.(request, ...rest)
    },
    onError: (error, ...rest) => {
      // Refused (acted on first, voided, over the maker's limits now): show the request as it now stands.
      void queryClient.invalidateQueries({ queryKey: approvalKeys.all })
      return options?.onError?.(error, ...rest)
    },
  })
}

export interface BulkApproveAnswer {
  items: ({ id: string; request: ApprovalRequest } | { id: string; problem: { code?: string | undefined; detail?: string | undefined } })[]
}

/** Approves several requests with one passkey assertion over the list (asked for when the server wants it). */
export function useBulkApproveMutation() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async (ids: string[]) => {
      return withStepUp((stepUp) => apiFetch<BulkApproveAnswer>("/api/approvals/bulk-approve", { method: "POST", body: stepUp ? { ids, step_up: stepUp } : { ids } }))
    },
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: approvalKeys.all })
      void queryClient.invalidateQueries({ queryKey: executionKeys.all })
      void queryClient.invalidateQueries({ queryKey: conversionKeys.all })
    },
  })
}

export function usePolicyQuery(options?: QueryOptions<PolicyView>) {
  return useQuery({
    refetchInterval: 5_000,
    ...options,
    queryKey: approvalKeys.policy(),
    queryFn: ({ signal }) => apiFetch("/api/policy", { signal, schema: policyViewSchema }),
    enabled: gated(true, options?.enabled),
  })
}

export function useSavePolicyMutation(options?: MutationOptions<PolicyView, Policy>) {
  const queryClient = useQueryClient()
  return useMutation({
    ...options,
    mutationFn: (policy: Policy) => apiFetch("/api/policy", { method: "PUT", body: policy, schema: policyViewSchema }),
    onSuccess: (view, ...rest) => {
      queryClient.setQueryData(approvalKeys.policy(), view)
      return options?.onSuccess?.(view, ...rest)
    },
  })
}
