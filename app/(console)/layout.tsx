import { headers } from "next/headers"
import Link from "next/link"
import { redirect } from "next/navigation"
import type { ReactNode } from "react"
import { ConsoleStream } from "@/components/layout/console-stream"
import { EnvBanner } from "@/components/layout/env-banner"
import { Logo } from "@/components/layout/logo"
import { Nav } from "@/components/layout/nav"
import { SearchBox } from "@/components/search/search-box"
import { SessionControls } from "@/components/layout/session-controls"
import { InboxBell } from "@/components/notifications/inbox-bell"
import { LazyNotifications } from "@/components/notifications/lazy-notifications"
import { roleAtLeast } from "@/lib/auth/roles"
import { currentStaff } from "@/lib/auth/session"
import { bannerConversionsApi } from "@/lib/console/runtime"
import { bannerFaultsStatus } from "@/lib/console/sandbox-tools"
import { serviceInfo } from "@/lib/console/service-info"
import { env } from "@/lib/env"

export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const staff = await currentStaff()
  if (!staff) {
    const path = (await headers()).get("x-console-path") ?? "/"
    redirect(`/sign-in?callbackUrl=${encodeURIComponent(path)}`)
  }
  const service = serviceInfo()
  // Cached a few seconds, capped at 1 s, null on failure: never holds up or breaks the page.
  const faults = service.mode === "sandbox" ? { initial: await bannerFaultsStatus(), tools: staff.role === "admin" } : undefined
  const conversionsApi = await bannerConversionsApi()
  return (
    <div className="flex min-h-screen flex-col">
      <a href="#main" className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2">
        Skip to content
      </a>
      <ConsoleStream />
      <EnvBanner mode={service.mode} host={service.host} faults={faults} conversionsApi={conversionsApi} stepUp={env().stepUp} />
      <header className="border-b border-slate-200 bg-white">
        {/* Narrow screens: the logo and the menu button on one line, who is signed in on the next. */}
        {/* On a phone: the logo, the menu and who is signed in on one line, the search on the next. */}
        <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-3 gap-y-1.5 px-4 py-1.5 sm:gap-x-4 sm:gap-y-2 sm:py-2">
          <Link href="/" className="flex shrink-0 items-center gap-2 text-base font-semibold text-slate-900">
            <Logo size={24} />
            <span className="sr-only sm:not-sr-only">Treasury console</span>
          </Link>
          <div className="ml-auto md:ml-0 md:flex-1">
            <Nav role={staff.role} sandbox={service.mode === "sandbox"} />
          </div>
          <div className="flex min-w-0 max-w-full flex-wrap items-center gap-x-3 gap-y-1 text-sm">
            {roleAtLeast(staff.role, "support") ? <SearchBox /> : null}
            <span className="flex min-w-0 items-center gap-1">
              <Link href="/account" className="truncate hover:underline" data-testid="staff-email" title={`${staff.email}: your account and passkeys`}>
                {staff.email}
              </Link>
              <span className="shrink-0 rounded bg-slate-100 px-1.5 py-0.5 text-xs font-semibold uppercase text-slate-700" data-testid="staff-role">
                {staff.role}
              </span>
            </span>
            <InboxBell />
            <SessionControls />
          </div>
        </div>
      </header>
      {/* Placements and requests only traders and admins make; after the header in the keyboard's order. */}
      {roleAtLeast(staff.role, "trader") ? <LazyNotifications email={staff.email} /> : null}
      <main id="main" className="mx-auto w-full max-w-7xl flex-1 px-4 py-6">
        {children}
      </main>
    </div>
  )
}
