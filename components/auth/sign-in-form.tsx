"use client"

import { signIn } from "next-auth/react"
import { useRouter } from "next/navigation"
import { useState } from "react"
import { useForm } from "react-hook-form"
import { Alert } from "@/components/ui/alert"
import { Button } from "@/components/ui/button"
import { Field, Input } from "@/components/ui/field"
import { useHydrated } from "@/components/ui/use-hydrated"
import { signInFailureMessage } from "@/components/auth/sign-in-message"
import { safeCallback } from "@/lib/auth/callback"

// Two fields need no schema library: react-hook-form's own rules keep zod out of the page
// everyone loads first.
type SignInValues = { email: string; password: string }
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

/** `initialFailure`: the page's own message for a `?error=` (a refused single sign-on). */
export function SignInForm({ callbackUrl, oidc, initialFailure }: { callbackUrl: string | undefined; oidc: boolean; initialFailure?: string | null }) {
  const router = useRouter()
  const hydrated = useHydrated()
  const [failure, setFailure] = useState<string | null>(initialFailure ?? null)
  const form = useForm<SignInValues>({ defaultValues: { email: "", password: "" } })
  const { errors, isSubmitting } = form.formState
  const [passkeyBusy, setPasskeyBusy] = useState(false)
  const target = safeCallback(callbackUrl)
  const emailField = form.register("email", {
    setValueAs: (value: string) => value.trim(),
    required: "Enter your email",
    pattern: { value: EMAIL, message: "Enter an email like name@example.com" },
  })
  const passwordField = form.register("password", { required: "Enter your password" })

  const onSubmit = form.handleSubmit(async (values) => {
    setFailure(null)
    const result = await signIn("credentials", { email: values.email, password: values.password, redirect: false }).catch(() => undefined)
    if (!result || result.error || !result.ok) {
      setFailure(signInFailureMessage(result?.error))
      form.setValue("password", "")
      form.setFocus("password")
      return
    }
    router.replace(target)
    router.refresh()
  })

  /** A discoverable passkey: the console's one-time challenge, the browser's account picker, then next-auth's passkey provider checks the answer. */
  async function signInWithPasskey() {
    setFailure(null)
    setPasskeyBusy(true)
    try {
      const res = await fetch("/api/sign-in/passkey-options", { method: "POST", credentials: "same-origin" }).catch(() => null)
      if (!res?.ok) {
        const problem = res ? ((await res.json().catch(() => null)) as { detail?: string } | null) : null
        setFailure(problem?.detail ?? "The console could not be reached. Try again.")
        return
      }
      const { startAuthentication } = await import("@simplewebauthn/browser")
      let answer: unknown
      try {
        answer = await startAuthentication({ optionsJSON: (await res.json()) as Parameters<typeof startAuthentication>[0]["optionsJSON"] })
      } catch {
        setFailure("No passkey was used (cancelled, or this device has none for this console).")
        return
      }
      const result = await signIn("passkey", { response: JSON.stringify(answer), redirect: false }).catch(() => undefined)
      if (!result || result.error || !result.ok) {
        setFailure(result?.error ? signInFailureMessage(result.error) : "That passkey did not sign you in: try again.")
        return
      }
      router.replace(target)
      router.refresh()
    } finally {
      setPasskeyBusy(false)
    }
  }

  return (
    <div className="space-y-4">
      {/* method="post": a submit before the script has loaded never puts the password in a URL. */}
      <form method="post" onSubmit={onSubmit} noValidate className="space-y-4" aria-label="Sign in">
        {failure ? <Alert tone="danger">{failure}</Alert> : null}
        <Field label="Email" error={errors.email?.message}>
          {(a11y) => <Input {...a11y} type="email" autoComplete="username" autoFocus {...emailField} />}
        </Field>
        <Field label="Password" error={errors.password?.message}>
          {(a11y) => <Input {...a11y} type="password" autoComplete="current-password" {...passwordField} />}
        </Field>
        <Button type="submit" className="w-full" busy={isSubmitting}>
          Sign in
        </Button>
      </form>
      {/* Disabled until hydrated: its work is all in the click handler. */}
      <Button variant="secondary" className="w-full" disabled={!hydrated} busy={passkeyBusy} onClick={() => void signInWithPasskey()} data-testid="passkey-sign-in">
        Sign in with a passkey
      </Button>
      {oidc ? (
        // Disabled until hydrated: its work is all in the click handler, so an earlier click would be lost.
        <Button variant="secondary" className="w-full" disabled={!hydrated} onClick={() => void signIn("oidc", { callbackUrl: target })}>
          Sign in with single sign-on
        </Button>
      ) : null}
    </div>
  )
}
