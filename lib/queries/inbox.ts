"use client"

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { apiFetch, toQuery } from "@/lib/queries/api"
import { inboxKeys } from "@/lib/queries/keys"
import { useStreamInterest, useStreamedInterval } from "@/lib/queries/stream"
import type { ChannelView, DeliveryView, Inbox, NotifySettingsBody, NotifySettingsView, Preference } from "@/lib/schemas/notify"

export const INBOX_POLL_MS = 4_000

/**
 * The signed-in person's inbox (the bell, the drawer and /notifications all read this one
 * query): polled every 4 s while the tab is visible, so an item someone else resolved shows
 * it within 5 s. While the tab's stream carries the `inbox` topic, the inbox is pushed into
 * this query instead (lib/queries/stream.ts) and the polling stops until the stream drops.
 */
export function useInboxQuery() {
  useStreamInterest([], [], ["inbox"])
  const interval = useStreamedInterval(INBOX_POLL_MS, "inbox")
  return useQuery({
    queryKey: inboxKeys.mine(),
    queryFn: ({ signal }) => apiFetch<Inbox>("/api/notifications/inbox", { signal }),
    refetchInterval: interval,
    refetchIntervalInBackground: false,
    staleTime: 1_000,
  })
}

/** Marks notifications read or unread (no ids: all); the inbox reads again. */
export function useMarkReadMutation() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (input: { ids?: string[]; read: boolean }) => apiFetch<{ changed: number; unread: number }>("/api/notifications/inbox/read", { method: "POST", body: input }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: inboxKeys.mine() }),
  })
}

export function usePreferencesQuery() {
  return useQuery({
    queryKey: inboxKeys.preferences(),
    queryFn: ({ signal }) => apiFetch<{ items: Preference[]; email_configured: boolean }>("/api/notifications/preferences", { signal }),
  })
}

export function useSavePreferencesMutation() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (items: Preference[]) => apiFetch<{ items: Preference[]; email_configured: boolean }>("/api/notifications/preferences", { method: "PUT", body: { items } }),
    onSuccess: (data) => queryClient.setQueryData(inboxKeys.preferences(), data),
  })
}

export function useChannelsQuery() {
  return useQuery({
    queryKey: inboxKeys.channels(),
    queryFn: ({ signal }) => apiFetch<{ items: ChannelView[] }>("/api/admin/notification-channels", { signal }),
  })
}

export function useAddChannelMutation() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (body: { name: string; type: "chat" | "webhook"; url: string; secret?: string; kinds: string[] }) =>
      apiFetch<ChannelView>("/api/admin/notification-channels", { method: "POST", body }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: inboxKeys.channels() }),
  })
}

export function useRemoveChannelMutation() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (id: string) => apiFetch(`/api/admin/notification-channels/${encodeURIComponent(id)}`, { method: "DELETE" }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: inboxKeys.channels() }),
  })
}

/** The team's notification settings (the large-order sizes per currency). */
export function useNotifySettingsQuery() {
  return useQuery({
    queryKey: inboxKeys.settings(),
    queryFn: ({ signal }) => apiFetch<NotifySettingsView>("/api/admin/notification-settings", { signal }),
  })
}

export function useSaveNotifySettingsMutation() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (body: NotifySettingsBody) => apiFetch<NotifySettingsView>("/api/admin/notification-settings", { method: "PUT", body }),
    onSuccess: (data) => queryClient.setQueryData(inboxKeys.settings(), data),
  })
}

export function useDeliveriesQuery(state: "pending" | "sent" | "parked" | undefined) {
  return useQuery({
    queryKey: inboxKeys.deliveries(state),
    queryFn: ({ signal }) => apiFetch<{ items: DeliveryView[] }>(`/api/admin/deliveries${toQuery({ state })}`, { signal }),
    refetchInterval: 5_000,
    refetchIntervalInBackground: false,
  })
}

export function useRetryDeliveriesMutation() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (ids: string[]) => apiFetch<{ retried: number }>("/api/admin/deliveries/retry", { method: "POST", body: { ids } }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: [...inboxKeys.all, "deliveries"] }),
  })
}
