import { Table, TableBody, TableHead, Td, Th, Tr } from "@/components/ui/table"
import type { AuthEventView } from "@/lib/auth/sessions"

const KIND_LABELS: Record<string, string> = {
  signed_in: "Signed in",
  signed_out: "Signed out",
  session_ended: "Session ended",
  session_expired: "Session expired",
  sign_in_failed: "Sign-in failed",
  locked_out: "Locked out",
  lockout_ended: "Lockout ended",
  session_end_refused: "Ending a session refused (step-up)",
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
    <Table caption="Sign-in events" framed>
      <TableHead>
        <Th>When</Th>
        <Th>Event</Th>
        <Th>Who</Th>
        <Th>From</Th>
        <Th>Details</Th>
      </TableHead>
      <TableBody>
        {events.map((event) => (
          <Tr key={event.id} data-testid="sign-in-event">
            <Td className="whitespace-nowrap">{event.at.replace("T", " ").slice(0, 19)} UTC</Td>
            <Td>{KIND_LABELS[event.kind] ?? event.kind}</Td>
            <Td>{event.email ?? <span className="text-slate-600">not a staff email</span>}</Td>
            <Td>{event.address ?? "unknown"}</Td>
            <Td>{describe(event)}</Td>
          </Tr>
        ))}
      </TableBody>
    </Table>
  )
}
