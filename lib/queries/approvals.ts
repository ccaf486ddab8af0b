"use client"

import { skipToken, useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { apiFetch, toQuery } from "@/lib/queries/api"
import { withStepUp } from "@/lib/queries/step-up"
import { approvalKeys, conversionKeys, executionKeys } from "@/lib/queries/keys"
import { type MutationOptions, type QueryOptions, gated } from "@/lib/queries/options"
import { APPROVALS_LIST, useStreamInterest, useStreamedInterval } from "@/lib/queries/stream"
import type { ApprovalPage, ApprovalRequest, Policy, PolicyChangeView, PolicyChangesPage, PolicyView } from "@/lib/schemas/approvals"

// The answers' schemas, loaded with the first answer: pages start without zod.
const approvalRequestSchema = () => import("@/lib/schemas/approvals").then((m) => m.approvalRequestSchema)
const approvalPageSchema = () => import("@/lib/schemas/approvals").then((m) => m.approvalPageSchema)
const policyViewSchema = () => import("@/lib/schemas/approvals").then((m) => m.policyViewSchema)
const policyChangesPageSchema = () => import("@/lib/schemas/approvals").then((m) => m.policyChangesPageSchema)
const policyChangeSchema = () => import("@/lib/schemas/approvals").then((m) => m.policyChangeSchema)

/** A create's answer is the record, or (202) the approval request it became. */
export function isApprovalRequest(answer: unknown): answer is ApprovalRequest {
  return typeof answer === "object" && answer !== null && "placement" in answer && "maker" in answer
}

/** A request still moving: waiting for a person, or approved and on its way to the service. */
export function isRequestOpen(request: ApprovalRequest): boolean {
  return request.state === "PENDING" || (request.state === "APPROVED" && request.placement === "SENDING")
}

/**
 * The /approvals page's list (every state, pending first, up to 100): new requests and
 * decisions pushed on the tab's stream (`approval_list`), else polled every 2 s.
 */
export function useApprovalsQuery(options?: QueryOptions<ApprovalPage>) {
  useStreamInterest([], [], options?.enabled === false ? [] : ["approval_list"])
  const interval = useStreamedInterval(2_000, "approval_list")
  return useQuery({
    refetchInterval: interval,
    ...options,
    queryKey: approvalKeys.list(APPROVALS_LIST),
    queryFn: ({ signal }) => apiFetch(`/api/approvals${toQuery(APPROVALS_LIST)}`, { signal, schema: approvalPageSchema }),
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

/** What saving the policy came to: applied at once (the only active admin), or a change waiting for another admin. */
export type PolicySaved = { kind: "applied"; view: PolicyView } | { kind: "pending"; change: PolicyChangeView }

/**
 * Proposes the policy (PUT /api/policy): with another active admin it waits for their
 * approval (202, the change); alone it applies at once, with this admin's passkey under
 * STEP_UP=webauthn (asked for when the server wants it).
 */
export function useSavePolicyMutation(options?: MutationOptions<PolicySaved, Policy>) {
  const queryClient = useQueryClient()
  return useMutation({
    ...options,
    mutationFn: async (policy: Policy): Promise<PolicySaved> => {
      const answer = await withStepUp((stepUp) => apiFetch<unknown>("/api/policy", { method: "PUT", body: stepUp ? { ...policy, step_up: stepUp } : policy }))
      const { policyChangeAnswerSchema, policyViewSchema } = await import("@/lib/schemas/approvals")
      const pending = policyChangeAnswerSchema.safeParse(answer)
      if (pending.success && pending.data.change.state === "PENDING") return { kind: "pending", change: pending.data.change }
      return { kind: "applied", view: policyViewSchema.parse(answer) }
    },
    onSuccess: (saved, ...rest) => {
      if (saved.kind === "applied") queryClient.setQueryData(approvalKeys.policy(), saved.view)
      void queryClient.invalidateQueries({ queryKey: approvalKeys.policyChanges() })
      return options?.onSuccess?.(saved, ...rest)
    },
  })
}

/** The policy change waiting for a second admin (with the policy it was made against) and the recent ones; polled every 3 s. */
export function usePolicyChangesQuery(options?: QueryOptions<PolicyChangesPage>) {
  return useQuery({
    refetchInterval: 3_000,
    ...options,
    queryKey: approvalKeys.policyChanges(),
    queryFn: ({ signal }) => apiFetch("/api/policy/changes?limit=10", { signal, schema: policyChangesPageSchema }),
    enabled: gated(true, options?.enabled),
  })
}

export type PolicyChangeDecision = { id: string; action: "approve" } | { id: string; action: "reject"; reason: string } | { id: string; action: "withdraw" }

/** Approve or reject another admin's policy change (with the passkey when the server asks), or withdraw one's own. */
export function useDecidePolicyChangeMutation(options?: MutationOptions<PolicyChangeView, PolicyChangeDecision>) {
  const queryClient = useQueryClient()
  return useMutation({
    ...options,
    mutationFn: ({ id, action, ...body }: PolicyChangeDecision) =>
      withStepUp((stepUp) =>
        apiFetch(`/api/policy/changes/${encodeURIComponent(id)}/${action}`, { method: "POST", body: stepUp ? { ...body, step_up: stepUp } : body, schema: policyChangeSchema }),
      ),
    onSettled: () => {
      // Applied, refused as stale, or decided by someone else first: the policy and the change as they now stand.
      void queryClient.invalidateQueries({ queryKey: approvalKeys.policy() })
    },
  })
}
