import type { Metadata } from "next"
import { redirect } from "next/navigation"
import { SignInForm } from "@/components/auth/sign-in-form"
import { signInErrorMessage } from "@/components/auth/sign-in-message"
import { Logo } from "@/components/layout/logo"
import { safeCallback } from "@/lib/auth/callback"
import { DEMO_USERS } from "@/lib/auth/demo-users"
import { ROLE_DESCRIPTIONS } from "@/lib/auth/roles"
import { currentStaff } from "@/lib/auth/session"
import { env } from "@/lib/env"

export const metadata: Metadata = { title: "Sign in" }

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams
  const callbackUrl = typeof params.callbackUrl === "string" ? params.callbackUrl : undefined
  const failure = signInErrorMessage(typeof params.error === "string" ? params.error.slice(0, 100) : undefined)
  if (await currentStaff()) redirect(safeCallback(callbackUrl))
  const config = env()
  const sandbox = config.mode === "sandbox"
  return (
    <main className="mx-auto flex min-h-screen max-w-md flex-col justify-center gap-6 px-4 py-10">
      <div>
        <Logo size={48} className="mb-3" />
        <h1 className="text-2xl font-semibold">Treasury console</h1>
        <p className="mt-1 text-sm text-slate-700">Sign in with your staff account.</p>
      </div>
      <div className="rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
        <SignInForm callbackUrl={callbackUrl} oidc={Boolean(config.oidc)} initialFailure={failure} />
      </div>
      {sandbox ? (
        <section aria-labelledby="demo-users" className="rounded-lg border border-amber-300 bg-amber-50 p-4 text-sm">
          <h2 id="demo-users" className="font-semibold text-amber-950">
            Sandbox demo users
          </h2>
          <p className="mt-1 text-amber-950">
            {/* The password itself only when it is the built-in development default: an explicit DEMO_PASSWORD stays off the page. */}
            Password for each:{" "}
            {config.demoPasswordIsDefault ? <code className="font-mono">{config.demoPassword}</code> : "the DEMO_PASSWORD this console was started with"}
          </p>
          <ul className="mt-2 space-y-1">
            {DEMO_USERS.map((user) => (
              <li key={user.email}>
                <code className="font-mono">{user.email}</code> — {user.role}: {ROLE_DESCRIPTIONS[user.role]}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </main>
  )
}
