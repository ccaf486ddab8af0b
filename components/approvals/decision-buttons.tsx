"use client"

import { Button } from "@/components/ui/button"

/**
 * The two answers to something waiting for a second person (an approval request, a policy
 * change): approve, or reject, which needs a reason. A reject without one calls
 * `onMissingReason` (the form says so) and sends nothing. While either is on its way both
 * are disabled, and the one sent shows as busy.
 */
export function DecisionButtons({
  approveLabel = "Approve",
  showApprove = true,
  sending,
  reason,
  onApprove,
  onReject,
  onMissingReason,
  testIds,
}: {
  approveLabel?: string
  showApprove?: boolean
  /** The action on its way, if any (a mutation's `variables.action` while it is pending). */
  sending: string | undefined
  /** The reason typed, trimmed. */
  reason: string
  onApprove: () => void
  onReject: (reason: string) => void
  onMissingReason: () => void
  testIds: { approve: string; reject: string }
}) {
  return (
    <div className="flex flex-wrap gap-2">
      {showApprove ? (
        <Button size="sm" busy={sending === "approve"} disabled={sending !== undefined} onClick={onApprove} data-testid={testIds.approve}>
          {approveLabel}
        </Button>
      ) : null}
      <Button
        variant="danger"
        size="sm"
        busy={sending === "reject"}
        disabled={sending !== undefined}
        onClick={() => (reason === "" ? onMissingReason() : onReject(reason))}
        data-testid={testIds.reject}
      >
        Reject
      </Button>
    </div>
  )
}
