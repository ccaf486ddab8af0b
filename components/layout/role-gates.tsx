import { Alert } from "@/components/ui/alert"
import type { Role } from "@/lib/auth/roles"

/** A whole page closed to the signed-in role: its heading, and what it needs. `needs` reads "The audit trail needs the admin role". */
export function NotAllowed({ heading, needs, role }: { heading: string; needs: string; role: Role }) {
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-semibold">{heading}</h1>
      <Alert tone="danger" title="Not allowed">
        {needs}; you are {role}.
      </Alert>
    </div>
  )
}

/** Shown instead of a page's controls when the signed-in role is below what its API allows. */
export function RoleNotice({ needed, role, what }: { needed: Role; role: Role; what: string }) {
  return (
    <Alert tone="info" title={`You need the ${needed} role`} className="max-w-2xl">
      <p data-testid="role-notice">
        {what} needs the {needed} role or above; you are signed in as {role}. Ask an admin if you need access.
      </p>
    </Alert>
  )
}
