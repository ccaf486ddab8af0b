"use client"

import { useQuery } from "@tanstack/react-query"
import { apiFetch, toQuery } from "@/lib/queries/api"
import { notificationKeys } from "@/lib/queries/keys"

const notificationPageSchema = () => import("@/lib/schemas/notifications").then((m) => m.notificationPageSchema)

export const NOTIFICATIONS_POLL_MS = 2_500

/**
 * The person's notifications since `since()` (read at each poll: the cursor other tabs
 * moved counts), polled every 2.5 s while the tab is visible; a hidden tab does not poll,
 * so what happens meanwhile is announced where the person is looking.
 */
export function useNotificationsQuery(person: string, since: () => string | null, enabled: boolean) {
  return useQuery({
    queryKey: notificationKeys.feed(person),
    queryFn: ({ signal }) => apiFetch(`/api/notifications${toQuery({ since: since() })}`, { signal, schema: notificationPageSchema }),
    enabled,
    refetchInterval: NOTIFICATIONS_POLL_MS,
    refetchIntervalInBackground: false,
    staleTime: 0,
    retry: false,
  })
}
