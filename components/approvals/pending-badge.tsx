"use client"

import { useQuery } from "@tanstack/react-query"
import { apiFetch } from "@/lib/queries/api"
import { approvalKeys } from "@/lib/queries/keys"

/** How many requests wait for the signed-in approver (everyone's but their own); nothing when none. */
export function PendingBadge() {
  const query = useQuery({
    queryKey: approvalKeys.list({ state: "PENDING", badge: "1" }),
    queryFn: ({ signal }) => apiFetch<{ pending_for_you: number }>("/api/approvals?state=PENDING&limit=1", { signal }),
    refetchInterval: 5_000,
  })
  const count = query.data?.pending_for_you ?? 0
  if (count === 0) return null
  return (
    <span className="ml-1.5 inline-flex min-w-5 items-center justify-center rounded-full bg-amber-500 px-1.5 text-xs font-bold text-white" data-testid="approvals-badge">
      <span className="sr-only">, waiting for you: </span>
      {count}
    </span>
  )
}
