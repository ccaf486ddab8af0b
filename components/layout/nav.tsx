"use client"

import Link from "next/link"
import { usePathname } from "next/navigation"
import { PendingBadge } from "@/components/approvals/pending-badge"
import { cn } from "@/components/ui/cn"
import { type Role, roleAtLeast } from "@/lib/auth/roles"

const ITEMS: { href: string; label: string; minimum: Role; sandboxOnly?: boolean }[] = [
  { href: "/trade", label: "Trade", minimum: "viewer" },
  { href: "/executions", label: "Executions", minimum: "viewer" },
  // Support and up: looking conversions up is support work; the page and its API refuse viewers.
  { href: "/conversions", label: "Conversions", minimum: "support" },
  { href: "/approvals", label: "Approvals", minimum: "trader" },
  { href: "/audit", label: "Audit", minimum: "admin" },
  { href: "/admin/sessions", label: "Sessions", minimum: "admin" },
  { href: "/sandbox", label: "Sandbox", minimum: "admin", sandboxOnly: true },
]

export function Nav({ role, sandbox }: { role: Role; sandbox: boolean }) {
  const pathname = usePathname()
  return (
    <nav aria-label="Main">
      <ul className="flex flex-wrap gap-1">
        {ITEMS.filter((item) => roleAtLeast(role, item.minimum) && (!item.sandboxOnly || sandbox)).map((item) => {
          const active = pathname === item.href || pathname.startsWith(`${item.href}/`)
          return (
            <li key={item.href}>
              <Link
                href={item.href}
                aria-current={active ? "page" : undefined}
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
