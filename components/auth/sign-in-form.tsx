"use client"

import { zodResolver } from "@hookform/resolvers/zod"
import { signIn } from "next-auth/react"
import { useRouter } from "next/navigation"
import { useState } from "react"
import { useForm } from "react-hook-form"
import { z } from "zod"
import { Alert } from "@/components/ui/alert"
import { Button } from "@/components/ui/button"
import { Field, Input } from "@/components/ui/field"
import { safeCallback } from "@/lib/auth/callback"

const signInSchema = z.object({
  email: z.string().trim().min(1, "Enter your email").email("Enter an email like name@example.com"),
  password: z.string().min(1, "Enter your password"),
})
type SignInValues = z.infer<typeof signInSchema>

export function SignInForm({ callbackUrl, oidc }: { callbackUrl: string | undefined; oidc: boolean }) {
  const router = useRouter()
  const [failure, setFailure] = useState<string | null>(null)
  const form = useForm<SignInValues>({ resolver: zodResolver(signInSchema), defaultValues: { email: "", password: "" } })
  const { errors, isSubmitting } = form.formState
  const target = safeCallback(callbackUrl)

  const onSubmit = form.handleSubmit(async (values) => {
    setFailure(null)
    const result = await signIn("credentials", { email: values.email, password: values.password, redirect: false })
    if (!result || result.error || !result.ok) {
      setFailure("Wrong email or password.")
      form.setValue("password", "")
      form.setFocus("password")
      return
    }
    router.replace(target)
    router.refresh()
  })

  return (
    <div className="space-y-4">
      <form onSubmit={onSubmit} noValidate className="space-y-4" aria-label="Sign in">
        {failure ? <Alert tone="danger">{failure}</Alert> : null}
        <Field label="Email" error={errors.email?.message}>
          {(a11y) => <Input {...a11y} type="email" autoComplete="username" autoFocus {...form.register("email")} />}
        </Field>
        <Field label="Password" error={errors.password?.message}>
          {(a11y) => <Input {...a11y} type="password" autoComplete="current-password" {...form.register("password")} />}
        </Field>
        <Button type="submit" className="w-full" busy={isSubmitting}>
          Sign in
        </Button>
      </form>
      {oidc ? (
        <Button variant="secondary" className="w-full" onClick={() => void signIn("oidc", { callbackUrl: target })}>
          Sign in with single sign-on
        </Button>
      ) : null}
    </div>
  )
}
