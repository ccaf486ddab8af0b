"use client"

import Link from "next/link"
import { Badge } from "@/components/ui/badge"
import { Button } from "@/components/ui/button"
import { Timestamp } from "@/components/ui/timestamp"
import { useMarkReadMutation } from "@/lib/queries/inbox"
import type { InboxItem } from "@/lib/schemas/notify"

/** Inbox items: each with its deep link, when, read or unread, and who acted on it if someone did. */
export function InboxList({ items, onOpen }: { items: InboxItem[]; onOpen?: () => void }) {
  const mark = useMarkReadMutation()
  if (items.length === 0) return <p className="text-sm text-slate-600" data-testid="inbox-empty">Nothing here yet.</p>
  return (
    <ul className="divide-y divide-slate-200" data-testid="inbox-list">
      {items.map((item) => (
        <li key={item.id} className="flex items-start gap-3 py-2" data-testid="inbox-item" data-kind={item.kind} data-read={item.read ? "true" : "false"}>
          <span aria-hidden="true" className={`mt-1.5 h-2 w-2 shrink-0 rounded-full ${item.read ? "bg-transparent" : "bg-blue-700"}`} />
          <div className="min-w-0 flex-1 space-y-0.5">
            <p className="flex flex-wrap items-center gap-2 text-sm">
              <Link
                href={item.href}
                className={`hover:underline ${item.read ? "" : "font-semibold"}`}
                onClick={() => {
                  if (!item.read) mark.mutate({ ids: [item.id], read: true })
                  onOpen?.()
                }}
                data-testid="inbox-link"
              >
                {item.title}
              </Link>
              {item.read ? null : <span className="sr-only">(unread)</span>}
              {item.resolved ? (
                <Badge tone="neutral">
                  <span data-testid="inbox-resolved">
                    Taken: {item.resolved.what} by {item.resolved.by}
                  </span>
                </Badge>
              ) : null}
            </p>
            <p className="text-sm text-slate-700">{item.detail}</p>
            <p className="text-xs text-slate-600">
              <Timestamp value={item.at} />
            </p>
          </div>
          <Button
            variant="secondary"
            size="sm"
            className="shrink-0"
            held={mark.isPending}
            onClick={() => mark.mutate({ ids: [item.id], read: !item.read })}
            data-testid="inbox-toggle-read"
          >
            {item.read ? "Mark unread" : "Mark read"}
            <span className="sr-only">: {item.title}</span>
          </Button>
        </li>
      ))}
    </ul>
  )
}
