"use client"

import Link from "next/link"
import { useSandboxStatusQuery } from "@/lib/queries/sandbox-status"
import type { SandboxFaultsStatus } from "@/lib/schemas/sandbox-tools"

/**
 * "Faults active" in the console's banner while any fault rule can fire, live for every
 * role (a trader with /trade open learns of a fault an admin just turned on). Admins also
 * get a link to the tools that turn them off.
 */
export function FaultsIndicator({ initial, tools }: { initial: SandboxFaultsStatus | null; tools: boolean }) {
  const status = useSandboxStatusQuery(initial ? { initialData: initial } : undefined)
  const current = status.data ?? initial
  return (
    <span role="status">
      {current?.faults_active ? (
        <span data-testid="faults-active" className="inline-flex items-center gap-2 rounded-full bg-red-700 px-3 py-0.5 text-white">
          <span aria-hidden>⚠</span>
          <span>
            FAULTS ACTIVE: {current.active_rules} {current.active_rules === 1 ? "rule" : "rules"} ({current.operations.join(", ")})
          </span>
          {tools ? (
            <Link href="/sandbox" className="font-normal underline">
              Sandbox tools
            </Link>
          ) : null}
        </span>
      ) : null}
    </span>
  )
}
