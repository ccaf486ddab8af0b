"use client"

import { InboxList } from "@/components/notifications/inbox-list"
import { Button } from "@/components/ui/button"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { formatCount } from "@/lib/format"
import { useInboxQuery, useMarkReadMutation } from "@/lib/queries/inbox"

/** The whole inbox (the latest 50). */
export function InboxPage() {
  const inbox = useInboxQuery()
  const mark = useMarkReadMutation()
  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="text-sm text-slate-700" data-testid="inbox-unread">
          {inbox.data ? `${formatCount(inbox.data.unread)} unread` : "Loading…"}
        </p>
        <Button variant="secondary" size="sm" disabled={!inbox.data || inbox.data.unread === 0} busy={mark.isPending} onClick={() => mark.mutate({ read: true })}>
          Mark all read
        </Button>
      </div>
      {inbox.error ? <ProblemAlert error={inbox.error} /> : null}
      {inbox.data ? <InboxList items={inbox.data.items} /> : null}
    </div>
  )
}
