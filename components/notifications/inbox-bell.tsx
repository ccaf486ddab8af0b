"use client"

import Link from "next/link"
import { useRef, useState } from "react"
import { InboxList } from "@/components/notifications/inbox-list"
import { Button } from "@/components/ui/button"
import { Dialog } from "@/components/ui/dialog"
import { formatCount } from "@/lib/format"
import { useInboxQuery, useMarkReadMutation } from "@/lib/queries/inbox"

/** The bell in the header: the unread count, and the drawer (a panel from the right) with the latest notifications. */
export function InboxBell() {
  const [open, setOpen] = useState(false)
  const bell = useRef<HTMLButtonElement>(null)
  const inbox = useInboxQuery()
  const mark = useMarkReadMutation()
  const unread = inbox.data?.unread ?? 0
  return (
    <>
      <button
        ref={bell}
        type="button"
        aria-haspopup="dialog"
        aria-expanded={open}
        onClick={() => setOpen(true)}
        className="relative inline-flex h-8 w-8 items-center justify-center rounded-md border border-slate-300 bg-white text-slate-800 hover:bg-slate-100"
        aria-label={unread > 0 ? `Notifications, ${formatCount(unread)} unread` : "Notifications"}
        data-testid="inbox-bell"
      >
        <svg aria-hidden="true" viewBox="0 0 24 24" className="h-4 w-4" fill="none" stroke="currentColor" strokeWidth="2">
          <path d="M6 8a6 6 0 1 1 12 0c0 7 3 9 3 9H3s3-2 3-9" />
          <path d="M10.3 21a1.94 1.94 0 0 0 3.4 0" />
        </svg>
        {unread > 0 ? (
          <span className="absolute -right-1.5 -top-1.5 min-w-4 rounded-full bg-red-700 px-1 text-center text-[10px] font-bold leading-4 text-white" data-testid="inbox-count">
            {unread > 99 ? "99+" : formatCount(unread)}
          </span>
        ) : null}
      </button>
      <Dialog
        placement="right"
        open={open}
        onClose={() => setOpen(false)}
        title="Notifications"
        returnFocus={bell}
        testId="inbox-panel"
        footer={
          <div className="flex flex-wrap items-center justify-between gap-2">
            <Link href="/notifications" className="text-sm text-blue-800 hover:underline" onClick={() => setOpen(false)} data-testid="inbox-see-all">
              All notifications and your preferences
            </Link>
            <div className="flex gap-2">
              <Button variant="secondary" size="sm" disabled={unread === 0} busy={mark.isPending} onClick={() => mark.mutate({ read: true })} data-testid="inbox-mark-all">
                Mark all read
              </Button>
              <Button size="sm" data-autofocus onClick={() => setOpen(false)}>
                Close
              </Button>
            </div>
          </div>
        }
      >
        <div data-testid="inbox-drawer">
          {inbox.data ? <InboxList items={inbox.data.items.slice(0, 10)} onOpen={() => setOpen(false)} /> : <p className="text-sm text-slate-600">Loading…</p>}
        </div>
      </Dialog>
    </>
  )
}
