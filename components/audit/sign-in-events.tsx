import type { AuthEventView } from "@/lib/auth/sessions"

const KIND_LABELS: Record<string, string> = {
  signed_in: "Signed in",
  signed_out: "Signed out",
  session_ended: "Session ended",
  session_expired: "Session expired",
  sign_in_failed: "Sign-in failed",
  locked_out: "Locked out",
  lockout_ended: "Lockout ended",
}

function describe(event: AuthEventView): string {
  const detail = event.detail ?? {}
  const parts: string[] = []
  if (typeof detail.role === "string") parts.push(`role ${detail.role}`)
  if (detail.provider === "oidc") parts.push(typeof detail.subject === "string" ? `single sign-on, subject ${detail.subject}` : "single sign-on")
  if (typeof detail.reason === "string") parts.push(detail.reason)
  if (typeof detail.until === "string") parts.push(`until ${detail.until.replace("T", " ").slice(0, 19)} UTC`)
  if (event.actor) parts.push(`by ${event.actor}`)
  return parts.join("; ")
}

/** The sign-in events filter of the audit trail: sign-ins, failures, lockouts and session ends. */
export function SignInEvents({ events }: { events: AuthEventView[] }) {
  if (events.length === 0) return <p className="text-sm text-slate-700">No sign-in events yet.</p>
  return (
    <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
      <table className="min-w-full text-left text-sm" aria-label="Sign-in events">
        <thead className="bg-slate-50 text-xs uppercase text-slate-700">
          <tr>
            <th scope="col" className="px-3 py-2">When</th>
            <th scope="col" className="px-3 py-2">Event</th>
            <th scope="col" className="px-3 py-2">Who</th>
            <th scope="col" className="px-3 py-2">From</th>
            <th scope="col" className="px-3 py-2">Details</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {events.map((event) => (
            <tr key={event.id} data-testid="sign-in-event">
              <td className="px-3 py-2 whitespace-nowrap">{event.at.replace("T", " ").slice(0, 19)} UTC</td>
              <td className="px-3 py-2">{KIND_LABELS[event.kind] ?? event.kind}</td>
              <td className="px-3 py-2">{event.email ?? <span className="text-slate-600">not a staff email</span>}</td>
              <td className="px-3 py-2">{event.address ?? "unknown"}</td>
              <td className="px-3 py-2">{describe(event)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
