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
  staff_invited: "Invited",
  staff_changed: "Staff changed",
  staff_removed: "Removed from staff",
  invitation_withdrawn: "Invitation withdrawn",
  invitation_accepted: "Invitation accepted",
  sign_in_rules_changed: "Sign-in rules changed",
  session_end_refused: "Ending a session refused (step-up)",
}

type Snapshot = Record<string, unknown> | null

function text(value: unknown): string {
  if (value === null || value === undefined) return "none"
  return Array.isArray(value) ? value.join(", ") || "none" : typeof value === "string" ? value : JSON.stringify(value)
}

/** A staff change's before and after, field by field: `role trader → viewer`. */
function change(before: Snapshot, after: Snapshot): string[] {
  if (!before && !after) return []
  if (!before) return [`added: ${Object.entries(after ?? {}).map(([k, v]) => `${k} ${text(v)}`).join(", ")}`]
  if (!after) return [`removed (was ${Object.entries(before).map(([k, v]) => `${k} ${text(v)}`).join(", ")})`]
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])]
  const changed = keys.filter((k) => text(before[k]) !== text(after[k])).map((k) => `${k.replace("_", " ")} ${text(before[k])} → ${text(after[k])}`)
  return changed.length > 0 ? changed : [`unchanged (${keys.map((k) => `${k} ${text(after[k])}`).join(", ")})`]
}

function describe(event: AuthEventView): string {
  const detail = event.detail ?? {}
  const parts: string[] = []
  if (typeof detail.role === "string") parts.push(`role ${detail.role}`)
  if ("before" in detail || "after" in detail) parts.push(...change((detail.before as Snapshot) ?? null, (detail.after as Snapshot) ?? null))
  if (typeof detail.outcome === "string" && detail.outcome !== "done") parts.push(`refused: ${detail.outcome}`)
  if (detail.provider === "passkey") parts.push("passkey")
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
