"use client"

import { zodResolver } from "@hookform/resolvers/zod"
import { type Control, type FieldErrors, type UseFormRegister, useFieldArray, useForm, useWatch } from "react-hook-form"
import {
  COMMIT_OPERATIONS,
  FAILING_OPERATIONS,
  FAULT_ERROR_STATUSES,
  FAULT_HINTS,
  FAULT_KINDS,
  FAULT_LABELS,
  FAULT_OPERATIONS,
  type FaultsForm,
  MAX_LATENCY_MS,
  NEW_RULE,
  OPERATION_LABELS,
  faultsFormSchema,
  formFromRule,
  ruleFromForm,
} from "@/components/sandbox-tools/rule-form"
import { Alert } from "@/components/ui/alert"
import { Button } from "@/components/ui/button"
import { Field, Input, Select } from "@/components/ui/field"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { ApiProblemError } from "@/lib/queries/api"
import { type SandboxSettings, useUpdateSandboxSettingsMutation } from "@/lib/queries/sandbox"

function RuleRow({
  index,
  control,
  register,
  errors,
  onRemove,
}: {
  index: number
  control: Control<FaultsForm>
  register: UseFormRegister<FaultsForm>
  errors: FieldErrors<FaultsForm>
  onRemove: () => void
}) {
  const fault = useWatch({ control, name: `rules.${index}.fault` })
  const operation = useWatch({ control, name: `rules.${index}.operation` })
  const rowErrors = errors.rules?.[index]
  const n = index + 1
  return (
    <fieldset className="rounded-md border border-slate-200 p-3" data-testid="fault-rule">
      <legend className="px-1 text-sm font-semibold text-slate-800">Rule {n}</legend>
      <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-[1.3fr_1.2fr_0.8fr_1fr_auto]">
        <Field label={`Operation (rule ${n})`} error={rowErrors?.operation?.message}>
          {(a11y) => (
            <Select {...a11y} {...register(`rules.${index}.operation`)}>
              {FAULT_OPERATIONS.map((op) => (
                <option key={op} value={op}>
                  {OPERATION_LABELS[op]}
                </option>
              ))}
            </Select>
          )}
        </Field>
        <Field label={`Fault (rule ${n})`} error={rowErrors?.fault?.message} hint={FAULT_HINTS[fault]}>
          {(a11y) => (
            <Select {...a11y} {...register(`rules.${index}.fault`)}>
              {FAULT_KINDS.map((kind) => (
                <option key={kind} value={kind} disabled={
                  (kind === "commit_then_fail" && !COMMIT_OPERATIONS.includes(operation)) ||
                  (kind === "fail_processing" && !FAILING_OPERATIONS.includes(operation))
                }>
                  {FAULT_LABELS[kind]}
                </option>
              ))}
            </Select>
          )}
        </Field>
        <Field label={`Chance % (rule ${n})`} error={rowErrors?.chance?.message} hint="How often it fires: 100 is every request.">
          {(a11y) => <Input {...a11y} inputMode="decimal" autoComplete="off" {...register(`rules.${index}.chance`)} />}
        </Field>
        {fault === "latency" ? (
          <Field label={`Latency ms (rule ${n})`} error={rowErrors?.latency_ms?.message} hint={`0 to ${MAX_LATENCY_MS}`}>
            {(a11y) => <Input {...a11y} inputMode="numeric" autoComplete="off" {...register(`rules.${index}.latency_ms`)} />}
          </Field>
        ) : fault === "error" || fault === "commit_then_fail" ? (
          <Field
            label={fault === "error" ? `Status (rule ${n})` : `Then (rule ${n})`}
            error={rowErrors?.status?.message}
            hint={fault === "commit_then_fail" ? "An error status after storing, or a dropped connection." : undefined}
          >
            {(a11y) => (
              <Select {...a11y} {...register(`rules.${index}.status`)}>
                <option value="">Choose…</option>
                {FAULT_ERROR_STATUSES.map((status) => (
                  <option key={status} value={String(status)}>
                    {status}
                  </option>
                ))}
                {fault === "commit_then_fail" ? <option value="drop">Drop the connection</option> : null}
              </Select>
            )}
          </Field>
        ) : (
          <div />
        )}
        <div className="flex items-start pt-6">
          <Button variant="ghost" size="sm" onClick={onRemove} aria-label={`Remove rule ${n}`}>
            Remove
          </Button>
        </div>
      </div>
    </fieldset>
  )
}

/** Field names of a 400 from the console (rules.0.rate) as the form names them (rules.0.chance). */
function formPath(field: string): `rules.${number}.${"operation" | "fault" | "chance" | "latency_ms" | "status"}` | null {
  const match = /^rules\.(\d+)\.(operation|fault|rate|latency_ms|status)$/.exec(field)
  if (!match?.[1] || !match[2]) return null
  const name = match[2] === "rate" ? "chance" : (match[2] as "operation" | "fault" | "latency_ms" | "status")
  return `rules.${Number(match[1])}.${name}`
}

/**
 * The fault rules: edit, add, remove, save; "Clear all faults" removes every rule in one
 * click. The form starts from the sandbox's rules and is reset to what it answers after each change.
 */
export function FaultsEditor({ settings }: { settings: SandboxSettings }) {
  const update = useUpdateSandboxSettingsMutation()
  const clear = useUpdateSandboxSettingsMutation()
  const {
    control,
    register,
    handleSubmit,
    setError,
    reset,
    formState: { errors, isDirty },
  } = useForm<FaultsForm>({
    resolver: zodResolver(faultsFormSchema),
    defaultValues: { rules: settings.rules.map(formFromRule) },
  })
  const { fields, append, remove } = useFieldArray({ control, name: "rules" })
  const active = settings.rules.filter((r) => r.rate > 0)

  const save = (form: FaultsForm) => {
    update.mutate(
      { rules: form.rules.map(ruleFromForm) },
      {
        onSuccess: (saved) => reset({ rules: saved.rules.map(formFromRule) }),
        onError: (error) => {
          if (!(error instanceof ApiProblemError)) return
          for (const [field, message] of Object.entries(error.fields)) {
            const path = formPath(field)
            if (path) setError(path, { message })
          }
        },
      },
    )
  }

  return (
    <div className="space-y-4">
      {active.length > 0 ? (
        <Alert tone="warning" title={`Faults active: ${active.length} ${active.length === 1 ? "rule" : "rules"}`}>
          Requests to the sandbox fail or slow down as these rules say, for everyone using this console.
        </Alert>
      ) : (
        <p className="text-sm text-slate-700" data-testid="no-faults">
          No faults active: the sandbox answers every request normally.
        </p>
      )}
      <div className="flex flex-wrap gap-2">
        <Button
          variant="danger"
          busy={clear.isPending}
          disabled={settings.rules.length === 0}
          onClick={() =>
            clear.mutate(
              { rules: [] },
              {
                onSuccess: () => {
                  update.reset()
                  reset({ rules: [] })
                },
              },
            )
          }
        >
          Clear all faults
        </Button>
      </div>
      {clear.isSuccess && settings.rules.length === 0 ? <Alert tone="success">All faults cleared.</Alert> : null}
      <ProblemAlert error={clear.error} />
      <form aria-label="Fault rules" noValidate className="space-y-3" onSubmit={(event) => void handleSubmit(save)(event)}>
        {fields.length === 0 ? <p className="text-sm text-slate-600">No rules. Add one to inject a fault.</p> : null}
        {fields.map((field, index) => (
          <RuleRow key={field.id} index={index} control={control} register={register} errors={errors} onRemove={() => remove(index)} />
        ))}
        {errors.rules?.root?.message || errors.rules?.message ? (
          <p role="alert" className="text-sm font-medium text-red-700">
            Rules: {errors.rules.root?.message ?? errors.rules.message}
          </p>
        ) : null}
        <div className="flex flex-wrap items-center gap-2">
          <Button variant="secondary" onClick={() => append({ ...NEW_RULE })}>
            Add rule
          </Button>
          <Button type="submit" busy={update.isPending} disabled={!isDirty}>
            Save faults
          </Button>
          {isDirty ? <span className="text-sm text-amber-800">Unsaved changes</span> : null}
        </div>
        {update.isSuccess && !isDirty ? <Alert tone="success">Faults saved.</Alert> : null}
        <ProblemAlert error={update.error} />
      </form>
    </div>
  )
}
