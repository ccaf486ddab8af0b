import { FaultsIndicator } from "@/components/sandbox-tools/faults-indicator"
import { cn } from "@/components/ui/cn"
import { CONVERSIONS_API_LABELS, type ConversionsApi } from "@/lib/schemas/constants"
import type { SandboxFaultsStatus } from "@/lib/schemas/sandbox-tools"

/** Always on screen: which service the console talks to, so nobody mistakes a demo for production. */
export function EnvBanner({
  mode,
  host,
  faults,
  conversionsApi,
  stepUp,
}: {
  mode: "sandbox" | "upstream"
  host: string
  /** The service's conversion API the conversions desk uses. */
  conversionsApi?: ConversionsApi | undefined
  /** Sandbox mode: the fault status at render time (kept fresh in the browser); `tools`: link to /sandbox (admins). */
  faults?: { initial: SandboxFaultsStatus | null; tools: boolean } | undefined
  /** Whether approve and reject ask for a passkey (STEP_UP); said on the banner when they do not. */
  stepUp?: "webauthn" | "off" | undefined
}) {
  const sandbox = mode === "sandbox"
  return (
    <div
      role="region"
      aria-label="Environment"
      className={cn(
        "flex flex-wrap items-center justify-center gap-x-3 px-4 py-0.5 text-center text-xs font-semibold sm:py-1.5 sm:text-sm",
        sandbox ? "bg-amber-300 text-amber-950" : "bg-red-700 text-white",
      )}
    >
      <span data-testid="env-mode">{sandbox ? "SANDBOX" : "PRODUCTION"}</span>
      {/* On a phone one line: the mode and the host; the rest is read out, and shown from 640 px. */}
      <span className="font-normal">
        <span className="sr-only sm:not-sr-only">{sandbox ? "Embedded sandbox — no real money moves" : "Real service — trades move real money"} · </span>
        <span data-testid="env-host" className="font-mono">
          {host}
        </span>
      </span>
      {conversionsApi ? (
        <span className="sr-only font-normal sm:not-sr-only">
          · conversions via{" "}
          <span data-testid="env-conversions-api" data-api={conversionsApi}>
            {CONVERSIONS_API_LABELS[conversionsApi]}
          </span>
        </span>
      ) : null}
      {stepUp === "off" ? (
        <span className="sr-only font-normal sm:not-sr-only" data-testid="env-step-up">
          · approvals without passkey step-up
        </span>
      ) : null}
      {sandbox && faults ? <FaultsIndicator initial={faults.initial} tools={faults.tools} /> : null}
    </div>
  )
}
