"use client"

import { usePendingForYouQuery } from "@/lib/queries/approvals"

/** How many requests wait for the signed-in approver (everyone's but their own); nothing when none. */
export function PendingBadge() {
  const count = usePendingForYouQuery().data?.pending_for_you ?? 0
  if (count === 0) return null
  return (
    <span className="ml-1.5 inline-flex min-w-5 items-center justify-center rounded-full bg-amber-500 px-1.5 text-xs font-bold text-white" data-testid="approvals-badge">
      <span className="sr-only">, waiting for you: </span>
      {count}
    </span>
  )
}
