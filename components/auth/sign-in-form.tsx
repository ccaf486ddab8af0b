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
      {oidc ? (
        // Disabled until hydrated: its work is all in the click handler, so an earlier click would be lost.
        <Button variant="secondary" className="w-full" disabled={!hydrated} onClick={() => void signIn("oidc", { callbackUrl: target })}>
          Sign in with single sign-on
        </Button>
      ) : null}
    </div>
  )
}
