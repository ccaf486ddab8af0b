"use client"

import Link from "next/link"
import { usePathname } from "next/navigation"
import { type KeyboardEvent, useId, useRef, useState } from "react"
import { PendingBadge } from "@/components/approvals/pending-badge"
import { cn } from "@/components/ui/cn"
import { type Role, roleAtLeast } from "@/lib/auth/roles"

const ITEMS: { href: string; label: string; minimum: Role; sandboxOnly?: boolean }[] = [
  { href: "/trade", label: "Trade", minimum: "viewer" },
  { href: "/executions", label: "Executions", minimum: "viewer" },
  // Support and up: looking conversions up is support work; the page and its API refuse viewers.
  { href: "/conversions", label: "Conversions", minimum: "support" },
  { href: "/transfers", label: "Transfers", minimum: "support" },
  { href: "/statements", label: "Statements", minimum: "support" },
  { href: "/approvals", label: "Approvals", minimum: "trader" },
  { href: "/audit", label: "Audit", minimum: "admin" },
  { href: "/events", label: "Events", minimum: "admin" },
  { href: "/admin/staff", label: "Staff", minimum: "admin" },
  { href: "/admin/sessions", label: "Sessions", minimum: "admin" },
  { href: "/admin/deliveries", label: "Deliveries", minimum: "admin" },
  { href: "/sandbox", label: "Sandbox", minimum: "admin", sandboxOnly: true },
]

/**
 * The main navigation: inline from the md breakpoint; on a narrow screen, a list behind a
 * "Menu" disclosure button. The list closes on Escape (focus back on the button), on a
 * click outside it and on navigation.
 */
export function Nav({ role, sandbox }: { role: Role; sandbox: boolean }) {
  const pathname = usePathname()
  const listId = useId()
  const button = useRef<HTMLButtonElement>(null)
  // The page the menu was opened on: navigating elsewhere closes it without an effect.
  const [openOn, setOpenOn] = useState<string | null>(null)
  const open = openOn === pathname
  const close = () => setOpenOn(null)
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== "Escape" || !open) return
    event.preventDefault()
    close()
    button.current?.focus()
  }
  return (
    <nav
      aria-label="Main"
      className="relative md:static"
      onKeyDown={onKeyDown}
      onBlur={(event) => {
        if (open && !event.currentTarget.contains(event.relatedTarget)) close()
      }}
    >
      <button
        ref={button}
        type="button"
        aria-expanded={open}
        aria-controls={listId}
        onClick={() => setOpenOn(open ? null : pathname)}
        className="inline-flex h-9 items-center gap-2 rounded-md border border-slate-300 bg-white px-3 text-sm font-medium text-slate-900 hover:bg-slate-100 md:hidden"
      >
        <svg aria-hidden="true" viewBox="0 0 16 16" className="h-4 w-4" fill="none" stroke="currentColor" strokeWidth="1.75">
          {open ? <path d="M3.5 3.5l9 9M12.5 3.5l-9 9" /> : <path d="M2 4h12M2 8h12M2 12h12" />}
        </svg>
        Menu
      </button>
      <ul
        id={listId}
        className={cn(
          open ? "absolute right-0 top-full z-40 mt-2 flex w-56 flex-col rounded-lg border border-slate-200 bg-white p-1 shadow-lg" : "hidden",
          "gap-1 md:static md:mt-0 md:flex md:w-auto md:flex-row md:flex-wrap md:border-0 md:bg-transparent md:p-0 md:shadow-none",
        )}
      >
        {ITEMS.filter((item) => roleAtLeast(role, item.minimum) && (!item.sandboxOnly || sandbox)).map((item) => {
          const active = pathname === item.href || pathname.startsWith(`${item.href}/`)
          return (
            <li key={item.href}>
              <Link
                href={item.href}
                aria-current={active ? "page" : undefined}
                onClick={close}
                className={cn(
                  "block rounded-md px-3 py-2 text-sm font-medium",
                  active ? "bg-slate-900 text-white" : "text-slate-700 hover:bg-slate-200",
                )}
              >
                {item.label}
                {item.href === "/approvals" ? <PendingBadge /> : null}
              </Link>
            </li>
          )
        })}
      </ul>
    </nav>
  )
}
