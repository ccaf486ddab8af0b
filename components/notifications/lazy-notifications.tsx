"use client"

import dynamic from "next/dynamic"

/**
 * The toasts load right after the page, not with it: nothing shows until the first poll
 * answers anyway, and every console page's first script stays smaller by their code.
 */
export const LazyNotifications = dynamic(() => import("@/components/notifications/notifications").then((m) => m.Notifications), { ssr: false })
