"use client"

import { zodResolver } from "@hookform/resolvers/zod"
import { useForm } from "react-hook-form"
import { type SettingsForm, settingsFormSchema } from "@/components/sandbox-tools/rule-form"
import { formatCount } from "@/lib/format"
import { Alert } from "@/components/ui/alert"
import { Button } from "@/components/ui/button"
import { Field, Input } from "@/components/ui/field"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { ApiProblemError } from "@/lib/queries/api"
import { type SandboxSettings, useUpdateSandboxSettingsMutation } from "@/lib/queries/sandbox"
import type { FaultSettingsUpdate } from "@/lib/schemas/sandbox-tools"

function duration(ms: number): string {
  return ms % 1000 === 0 ? `${formatCount(ms / 1000)} s` : `${formatCount(ms)} ms`
}

function formOf(settings: SandboxSettings): SettingsForm {
  return {
    settle_delay_ms: String(settings.settle_delay_ms ?? 0),
    quote_ttl_ms: settings.quote_ttl_ms === undefined ? "" : String(settings.quote_ttl_ms),
    rate_limits: settings.rate_limits ?? false,
  }
}

/**
 * Settle delay, quote hold time and rate limits, as the sandbox changes them at runtime.
 * A sandbox that does not report a quote hold time can't change it: the configured one is shown.
 */
export function SettingsFormCard({ settings, configuredQuoteTtlMs }: { settings: SandboxSettings; configuredQuoteTtlMs: number }) {
  const update = useUpdateSandboxSettingsMutation()
  const quoteTtlChangeable = settings.quote_ttl_ms !== undefined
  const {
    register,
    handleSubmit,
    setError,
    reset,
    formState: { errors, isDirty },
  } = useForm<SettingsForm>({ resolver: zodResolver(settingsFormSchema), defaultValues: formOf(settings) })

  const save = (form: SettingsForm) => {
    // quote_ttl_ms only goes out when the sandbox reported one (it takes it then).
    const patch: FaultSettingsUpdate & { quote_ttl_ms?: number } = { settle_delay_ms: Number(form.settle_delay_ms), rate_limits: form.rate_limits }
    if (quoteTtlChangeable && form.quote_ttl_ms !== "") patch.quote_ttl_ms = Number(form.quote_ttl_ms)
    update.mutate(patch, {
      onSuccess: (saved) => reset(formOf(saved)),
      onError: (error) => {
        if (!(error instanceof ApiProblemError)) return
        for (const field of ["settle_delay_ms", "quote_ttl_ms"] as const) {
          const message = error.fields[field]
          if (message) setError(field, { message })
        }
      },
    })
  }

  return (
    <form aria-label="Sandbox settings" noValidate className="space-y-4" onSubmit={(event) => void handleSubmit(save)(event)}>
      <Field
        label="Settlement delay (ms)"
        error={errors.settle_delay_ms?.message}
        hint="How long a new execution or conversion stays CREATED before it is SETTLED. 0 settles at once."
      >
        {(a11y) => <Input {...a11y} inputMode="numeric" autoComplete="off" className="max-w-[12rem]" {...register("settle_delay_ms")} />}
      </Field>
      {quoteTtlChangeable ? (
        <Field
          label="Quote hold time (ms)"
          error={errors.quote_ttl_ms?.message}
          hint="How long a new quote can be executed: 30,000 is the service's 30 s. Quotes already made keep theirs."
        >
          {(a11y) => <Input {...a11y} inputMode="numeric" autoComplete="off" className="max-w-[12rem]" {...register("quote_ttl_ms")} />}
        </Field>
      ) : (
        <div className="space-y-1">
          <p className="text-sm font-medium text-slate-800">Quote hold time</p>
          <p className="text-sm" data-testid="quote-hold">
            {duration(configuredQuoteTtlMs)}{" "}
            <span className="text-slate-600">— fixed when the console starts (SANDBOX_QUOTE_TTL_MS); this sandbox cannot change it while running.</span>
          </p>
        </div>
      )}
      <div className="space-y-1">
        <div className="flex items-center gap-2">
          <input
            id="sandbox-rate-limits"
            type="checkbox"
            className="size-4 rounded border-slate-400"
            aria-describedby="sandbox-rate-limits-hint"
            {...register("rate_limits")}
          />
          <label htmlFor="sandbox-rate-limits" className="text-sm font-medium text-slate-800">
            Rate limits on
          </label>
        </div>
        <p id="sandbox-rate-limits-hint" className="text-xs text-slate-600">
          The service&apos;s limits: token 1 request/s, executions 10/s, everything else 50/s; over them, 429 with Retry-After.
        </p>
      </div>
      <div className="flex items-center gap-2">
        <Button type="submit" busy={update.isPending} disabled={!isDirty}>
          Save settings
        </Button>
        {isDirty ? <span className="text-sm text-amber-800">Unsaved changes</span> : null}
      </div>
      {update.isSuccess && !isDirty ? <Alert tone="success">Settings saved.</Alert> : null}
      <ProblemAlert error={update.error} />
    </form>
  )
}
