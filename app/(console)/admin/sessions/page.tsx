import type { Metadata } from "next"
import { EndSessionButton } from "@/components/admin/end-session-button"
import { formatCount } from "@/lib/format"
import { Table, TableBody, TableHead, Td, Th, Tr } from "@/components/ui/table"
import { NotAllowed } from "@/components/layout/role-gates"
import { roleAtLeast } from "@/lib/auth/roles"
import { currentStaff } from "@/lib/auth/session"
import { passkeyCounts } from "@/lib/auth/passkeys"
import { SESSION_ABSOLUTE_S, sessionIdleS, listSessions } from "@/lib/auth/sessions"
import { consoleRuntime } from "@/lib/console/runtime"

export const metadata: Metadata = { title: "Sessions" }
export const dynamic = "force-dynamic"

function when(iso: string): string {
  return new Date(iso).toISOString().replace("T", " ").slice(0, 19) + " UTC"
}

export default async function SessionsPage() {
  const staff = await currentStaff()
  if (!staff) return null
  if (!roleAtLeast(staff.role, "admin")) return <NotAllowed heading="Sessions" needs="Sessions need the admin role" role={staff.role} />
  const { db } = await consoleRuntime()
  const [sessions, passkeys] = await Promise.all([listSessions(db), passkeyCounts(db)])
  return (
    <div className="space-y-4">
      <div>
        <h1 className="text-2xl font-semibold">Sessions</h1>
        <p className="mt-1 text-sm text-slate-700">
          Everyone signed in now. A session ends at sign-out, after {sessionIdleS() / 60} minutes without a request, {SESSION_ABSOLUTE_S / 3600} hours after
          sign-in, when its user is disabled or removed on Staff, or when you end it here; ending takes effect on every instance within seconds and goes on
          the audit trail.
        </p>
      </div>
      {sessions.length === 0 ? (
        <p className="text-sm text-slate-700">No open sessions.</p>
      ) : (
        <Table caption="Open sessions" framed>
          <TableHead>
            <Th>Who</Th>
            <Th>Role</Th>
            <Th>Passkeys</Th>
            <Th>Since</Th>
            <Th>Last seen</Th>
            <Th>From</Th>
            <Th>
              <span className="sr-only">Actions</span>
            </Th>
          </TableHead>
          <TableBody>
            {sessions.map((session) => (
              <Tr key={session.id} data-testid="session-row">
                <Td className="font-medium">{session.email}</Td>
                <Td>{session.role}</Td>
                <Td data-testid="session-passkeys">{formatCount(passkeys.get(session.email.toLowerCase()) ?? 0)}</Td>
                <Td className="whitespace-nowrap">{when(session.created_at)}</Td>
                <Td className="whitespace-nowrap">{when(session.last_seen_at)}</Td>
                <Td>
                  <div>{session.address ?? "unknown address"}</div>
                  <div className="max-w-xs truncate text-xs text-slate-600" title={session.user_agent ?? undefined}>
                    {session.user_agent ?? "unknown browser"}
                  </div>
                </Td>
                <Td>
                  <EndSessionButton id={session.id} who={session.email} />
                </Td>
              </Tr>
            ))}
          </TableBody>
        </Table>
      )}
    </div>
  )
}
