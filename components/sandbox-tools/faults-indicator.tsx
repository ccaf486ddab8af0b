"use client"

import Link from "next/link"
import { useSandboxStatusQuery } from "@/lib/queries/sandbox-status"
import type { SandboxFaultsStatus } from "@/lib/schemas/sandbox-tools"

/**
 * "Faults active" in the console's banner while any fault rule can fire. Admins' copy
 * stays live (it follows changes made on /sandbox at once); others see the state of
 * their last page load.
 */
export function FaultsIndicator({ initial, live }: { initial: SandboxFaultsStatus | null; live: boolean }) {
  const status = useSandboxStatusQuery(initial, live)
  const current = status.data ?? initial
  return (
    <span role="status" className="contents">
      {current?.faults_active ? (
        <span data-testid="faults-active" className="inline-flex items-center gap-2 rounded-full bg-red-700 px-3 py-0.5 text-white">
          <span aria-hidden>⚠</span>
          <span>
            FAULTS ACTIVE: {current.active_rules} {current.active_rules === 1 ? "rule" : "rules"} ({current.operations.join(", ")})
          </span>
          {live ? (
            <Link href="/sandbox" className="font-normal underline">
              Sandbox tools
            </Link>
          ) : null}
        </span>
      ) : null}
    </span>
  )
}
