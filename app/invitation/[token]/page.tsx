import type { Metadata } from "next"
import Link from "next/link"
import { AcceptInvitation } from "@/components/staff/accept-invitation"
import { Logo } from "@/components/layout/logo"
import { PASSWORD_MIN_LENGTH } from "@/lib/auth/password-rules"
import { ROLE_DESCRIPTIONS } from "@/lib/auth/roles"
import { INVITATION_STATE_TEXT, invitationByToken } from "@/lib/auth/staff"
import { consoleRuntime } from "@/lib/console/runtime"

// The token is in the path: no page this one links to learns it.
export const metadata: Metadata = { title: "Accept your invitation", referrer: "no-referrer" }
export const dynamic = "force-dynamic"

const HEADINGS = { used: "Invitation already used", expired: "Invitation expired", withdrawn: "Invitation withdrawn", unknown: "Not an invitation" } as const

/** Signed out: an invitation's one-time link. A link used, expired or withdrawn says so, and nothing changes. */
export default async function InvitationPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params
  const { db } = await consoleRuntime()
  const found = await invitationByToken(db, token)
  return (
    <main className="mx-auto flex min-h-screen max-w-md flex-col justify-center gap-6 px-4 py-10">
      <div>
        <Logo size={48} className="mb-3" />
        <h1 className="text-2xl font-semibold">{found.state === "pending" ? "Accept your invitation" : HEADINGS[found.state]}</h1>
      </div>
      {found.state === "pending" && found.invitation ? (
        <div className="space-y-4 rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
          <p className="text-sm text-slate-700">
            <strong>{found.invitation.invited_by}</strong> invited <strong data-testid="invited-email">{found.invitation.email}</strong> to the treasury console as{" "}
            <strong data-testid="invited-role">{found.invitation.role}</strong> ({ROLE_DESCRIPTIONS[found.invitation.role]}). Set a password of at least {PASSWORD_MIN_LENGTH}{" "}
            characters, add a passkey, or both. The link works once, until {found.invitation.expires_at.replace("T", " ").slice(0, 16)} UTC.
          </p>
          <AcceptInvitation token={token} email={found.invitation.email} />
        </div>
      ) : (
        <div className="space-y-3 rounded-lg border border-amber-300 bg-amber-50 p-6 text-sm text-amber-950" data-testid="invitation-unusable" data-reason={found.state}>
          <p>{found.state === "pending" ? INVITATION_STATE_TEXT.unknown : INVITATION_STATE_TEXT[found.state]}</p>
          <p>Nothing was changed.</p>
          <Link href="/sign-in" className="font-medium underline">
            Go to sign-in
          </Link>
        </div>
      )}
    </main>
  )
}
