"use client"

import { useQuery } from "@tanstack/react-query"
import { apiFetch, toQuery } from "@/lib/queries/api"
import { notificationKeys } from "@/lib/queries/keys"
import { useStreamInterest, useStreamedInterval } from "@/lib/queries/stream"

const notificationPageSchema = () => import("@/lib/schemas/notifications").then((m) => m.notificationPageSchema)

export const NOTIFICATIONS_POLL_MS = 2_500

/**
 * The person's notifications since `since()` (read at each poll: the cursor other tabs
 * moved counts), polled every 2.5 s while the tab is visible; a hidden tab does not poll,
 * so what happens meanwhile is announced where the person is looking. While the tab's stream
 * carries `notifications`, new events are pushed into this query instead and the polling
 * stops (the stream's hub does the poll's other work, asking the service about the person's
 * placements in flight, once per person: lib/console/stream-topics.ts).
 */
export function useNotificationsQuery(person: string, since: () => string | null, enabled: boolean) {
  useStreamInterest([], [], enabled ? ["notifications"] : [])
  const interval = useStreamedInterval(NOTIFICATIONS_POLL_MS, "notifications")
  return useQuery({
    queryKey: notificationKeys.feed(person),
    queryFn: ({ signal }) => apiFetch(`/api/notifications${toQuery({ since: since() })}`, { signal, schema: notificationPageSchema }),
    enabled,
    refetchInterval: interval,
    refetchIntervalInBackground: false,
    staleTime: 0,
    retry: false,
  })
}
