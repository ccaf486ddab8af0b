import { Alert } from "@/components/ui/alert"
import type { Role } from "@/lib/auth/roles"

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
