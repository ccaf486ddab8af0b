"use client"

import Link from "next/link"
import { useState } from "react"
import { Alert } from "@/components/ui/alert"
import { Button } from "@/components/ui/button"
import { Field, Input } from "@/components/ui/field"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "@/lib/auth/password-rules"
import { ApiProblemError, apiFetch } from "@/lib/queries/api"

type Registration = { name: string; response: unknown }

/** The accept form: a password and/or a passkey, sent together with the invitation's token (used once). */
export function AcceptInvitation({ token, email }: { token: string; email: string }) {
  const [password, setPassword] = useState("")
  const [passkeyName, setPasskeyName] = useState("This device")
  const [passkey, setPasskey] = useState<Registration | null>(null)
  const [registering, setRegistering] = useState(false)
  const [submitting, setSubmitting] = useState(false)
  const [error, setError] = useState<unknown>(null)
  const [passwordError, setPasswordError] = useState<string | undefined>()
  const [done, setDone] = useState<{ password: boolean; passkey: boolean } | null>(null)

  async function addPasskey() {
    setError(null)
    setRegistering(true)
    try {
      const options = await apiFetch<Record<string, unknown>>("/api/invitations/passkey-options", { method: "POST", body: { token } })
      const { startRegistration } = await import("@simplewebauthn/browser")
      const response = await startRegistration({ optionsJSON: options as unknown as Parameters<typeof startRegistration>[0]["optionsJSON"] }).catch((cause: unknown) => {
        throw new Error(`No passkey was made (${cause instanceof Error ? cause.message : "cancelled"}).`, { cause })
      })
      setPasskey({ name: passkeyName.trim() || "Passkey", response })
    } catch (caught) {
      setError(caught)
    } finally {
      setRegistering(false)
    }
  }

  async function accept(event: React.FormEvent) {
    event.preventDefault()
    setError(null)
    setPasswordError(undefined)
    if (password === "" && !passkey) {
      setPasswordError("Set a password, add a passkey, or both")
      return
    }
    if (password !== "" && password.length < PASSWORD_MIN_LENGTH) {
      setPasswordError(`Use at least ${PASSWORD_MIN_LENGTH} characters`)
      return
    }
    setSubmitting(true)
    try {
      const result = await apiFetch<{ password: boolean; passkey: boolean }>("/api/invitations/accept", {
        method: "POST",
        body: { token, ...(password !== "" ? { password } : {}), ...(passkey ? { passkey } : {}) },
      })
      setDone(result)
    } catch (caught) {
      if (caught instanceof ApiProblemError && caught.fields.password) setPasswordError(caught.fields.password)
      else setError(caught)
    } finally {
      setSubmitting(false)
    }
  }

  if (done) {
    return (
      <div className="space-y-3" data-testid="invitation-accepted">
        <Alert tone="success" title="Your account is ready">
          Sign in as {email} with {[done.password ? "your password" : null, done.passkey ? "your passkey" : null].filter(Boolean).join(" or ")}.
        </Alert>
        <Link href="/sign-in" className="inline-block font-medium text-slate-900 underline">
          Go to sign-in
        </Link>
      </div>
    )
  }

  return (
    <form onSubmit={accept} noValidate className="space-y-4" aria-label="Accept invitation">
      {/* For password managers: the account this password belongs to. */}
      <input type="email" name="username" autoComplete="username" value={email} readOnly hidden />
      <Field label="New password" error={passwordError} hint={`At least ${PASSWORD_MIN_LENGTH} characters; a phrase of several unusual words works well.`}>
        {(a11y) => (
          <Input {...a11y} type="password" autoComplete="new-password" maxLength={PASSWORD_MAX_LENGTH} value={password} onChange={(e) => setPassword(e.target.value)} autoFocus data-testid="invitation-password" />
        )}
      </Field>
      <fieldset className="space-y-2 rounded-md border border-slate-200 p-3">
        <legend className="px-1 text-sm font-medium text-slate-800">Passkey (optional with a password)</legend>
        {passkey ? (
          <p className="text-sm text-green-800" data-testid="invitation-passkey-ready">
            Passkey “{passkey.name}” made on this device: it is kept when you accept.
          </p>
        ) : (
          <div className="flex flex-wrap items-end gap-2">
            <Field label="Passkey name" className="min-w-40 flex-1">
              {(a11y) => <Input {...a11y} value={passkeyName} maxLength={60} onChange={(e) => setPasskeyName(e.target.value)} data-testid="invitation-passkey-name" />}
            </Field>
            <Button type="button" variant="secondary" size="sm" busy={registering} onClick={() => void addPasskey()} data-testid="invitation-add-passkey">
              Add a passkey
            </Button>
          </div>
        )}
      </fieldset>
      {error ? <ProblemAlert error={error} /> : null}
      <Button type="submit" className="w-full" busy={submitting} data-testid="invitation-accept">
        Accept invitation
      </Button>
    </form>
  )
}
