"use client"

import { zodResolver } from "@hookform/resolvers/zod"
import { useForm } from "react-hook-form"
import { Button } from "@/components/ui/button"
import { Field, Input, Select } from "@/components/ui/field"
import { type AuditFilterForm, EMPTY_FILTERS, auditFilterFormSchema } from "@/components/audit/filters-schema"
import { INTENT_OPERATION_VALUES, INTENT_STATE_VALUES, OPERATION_LABELS } from "@/components/audit/format"

/** Staff, operation, state and a date range (UTC days, like the table's times; both inclusive). */
export function AuditFiltersForm({
  initial,
  staffSeen,
  onApply,
}: {
  initial: AuditFilterForm
  staffSeen: readonly string[]
  onApply: (filters: AuditFilterForm) => void
}) {
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors },
  } = useForm<AuditFilterForm>({ resolver: zodResolver(auditFilterFormSchema), defaultValues: initial })
  return (
    <form
      aria-label="Audit filters"
      noValidate
      className="grid gap-3 sm:grid-cols-2 lg:grid-cols-[minmax(12rem,1.5fr)_1fr_1fr_1fr_1fr_auto]"
      onSubmit={(event) => void handleSubmit(onApply)(event)}
    >
      <Field label="Staff email" error={errors.staff?.message}>
        {(a11y) => (
          <>
            <Input {...a11y} type="email" list="audit-staff-seen" autoComplete="off" placeholder="Anyone" {...register("staff")} />
            <datalist id="audit-staff-seen">
              {staffSeen.map((email) => (
                <option key={email} value={email} />
              ))}
            </datalist>
          </>
        )}
      </Field>
      <Field label="Operation" error={errors.operation?.message}>
        {(a11y) => (
          <Select {...a11y} {...register("operation")}>
            <option value="">Any operation</option>
            {INTENT_OPERATION_VALUES.map((op) => (
              <option key={op} value={op}>
                {OPERATION_LABELS[op] ?? op}
              </option>
            ))}
          </Select>
        )}
      </Field>
      <Field label="State" error={errors.state?.message}>
        {(a11y) => (
          <Select {...a11y} {...register("state")}>
            <option value="">Any state</option>
            {INTENT_STATE_VALUES.map((state) => (
              <option key={state} value={state}>
                {state}
              </option>
            ))}
          </Select>
        )}
      </Field>
      <Field label="From date (UTC)" error={errors.from?.message}>
        {(a11y) => <Input {...a11y} type="date" {...register("from")} />}
      </Field>
      <Field label="To date (UTC)" error={errors.to?.message}>
        {(a11y) => <Input {...a11y} type="date" {...register("to")} />}
      </Field>
      <div className="flex items-end gap-2">
        <Button type="submit">Apply filters</Button>
        <Button
          type="button"
          variant="secondary"
          onClick={() => {
            reset(EMPTY_FILTERS)
            onApply(EMPTY_FILTERS)
          }}
        >
          Clear
        </Button>
      </div>
    </form>
  )
}
