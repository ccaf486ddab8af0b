"use client"

import { type Control, type FieldErrors, type FieldValues, type Path, type UseFormRegister, useFieldArray, useWatch } from "react-hook-form"
import { Button } from "@/components/ui/button"
import { cn } from "@/components/ui/cn"
import { Input } from "@/components/ui/field"
import { METADATA_MAX_LENGTH, METADATA_MAX_PAIRS, type MetadataRow, characterCount, isFilledRow } from "@/lib/schemas/metadata"

type WithMetadata = FieldValues & { metadata: MetadataRow[] }

function Counter({ value, id }: { value: string; id: string }) {
  const n = characterCount(value)
  return (
    <span id={id} className={cn("text-xs tabular", n > METADATA_MAX_LENGTH ? "font-semibold text-red-700" : "text-slate-600")}>
      {n} / {METADATA_MAX_LENGTH}
    </span>
  )
}

/**
 * Key/value rows for a record's metadata: add and remove rows, an "n of 6" counter of the
 * rows filled in, and a character counter against 100 under every key and value, with
 * each rule's message right under its input.
 */
export function MetadataEditor<T extends WithMetadata>({
  control,
  register,
  errors,
}: {
  control: Control<T>
  register: UseFormRegister<T>
  errors: FieldErrors<T>
}) {
  const { fields, append, remove } = useFieldArray({ control: control as unknown as Control<WithMetadata>, name: "metadata" })
  const rows = (useWatch({ control: control as unknown as Control<WithMetadata>, name: "metadata" }) ?? [])
  // Blank rows are ignored by the rules and never sent, so they do not count against the limit.
  const used = rows.filter(isFilledRow).length
  const rowErrors = (errors as FieldErrors<WithMetadata>).metadata
  // A rule over the whole list lands on `root`, which may sit on the per-row errors array.
  const listError = rowErrors as { message?: string; root?: { message?: string } } | undefined
  const listMessage = listError?.root?.message ?? (Array.isArray(rowErrors) ? undefined : listError?.message)
  return (
    <fieldset className="space-y-3">
      <legend className="flex w-full items-center justify-between text-sm font-medium text-slate-800">
        <span>Metadata</span>
        <span data-testid="metadata-count" className={cn("text-xs tabular", used > METADATA_MAX_PAIRS ? "font-semibold text-red-700" : "text-slate-600")}>
          {used} of {METADATA_MAX_PAIRS}
          {fields.length > used ? <span className="font-normal text-slate-600"> (blank rows are not sent)</span> : null}
        </span>
      </legend>
      {fields.map((field, index) => {
        const errorsOf = Array.isArray(rowErrors) ? (rowErrors[index] as { key?: { message?: string }; value?: { message?: string } } | undefined) : undefined
        const keyId = `metadata-${field.id}-key`
        const valueId = `metadata-${field.id}-value`
        return (
          <div key={field.id} className="grid grid-cols-[1fr_1fr_auto] items-start gap-2">
            <div className="space-y-1">
              <label htmlFor={keyId} className="block text-xs font-medium text-slate-700">
                Key {index + 1}
              </label>
              <Input
                id={keyId}
                aria-invalid={Boolean(errorsOf?.key)}
                aria-describedby={`${keyId}-count${errorsOf?.key ? ` ${keyId}-error` : ""}`}
                {...register(`metadata.${index}.key` as Path<T>)}
              />
              <Counter id={`${keyId}-count`} value={rows[index]?.key ?? ""} />
              {errorsOf?.key?.message ? (
                <p id={`${keyId}-error`} role="alert" className="text-sm font-medium text-red-700">
                  {errorsOf.key.message}
                </p>
              ) : null}
            </div>
            <div className="space-y-1">
              <label htmlFor={valueId} className="block text-xs font-medium text-slate-700">
                Value {index + 1}
              </label>
              <Input
                id={valueId}
                aria-invalid={Boolean(errorsOf?.value)}
                aria-describedby={`${valueId}-count${errorsOf?.value ? ` ${valueId}-error` : ""}`}
                {...register(`metadata.${index}.value` as Path<T>)}
              />
              <Counter id={`${valueId}-count`} value={rows[index]?.value ?? ""} />
              {errorsOf?.value?.message ? (
                <p id={`${valueId}-error`} role="alert" className="text-sm font-medium text-red-700">
                  {errorsOf.value.message}
                </p>
              ) : null}
            </div>
            <Button variant="ghost" size="sm" className="mt-5" onClick={() => remove(index)} aria-label={`Remove metadata row ${index + 1}`}>
              Remove
            </Button>
          </div>
        )
      })}
      {listMessage ? (
        <p role="alert" className="text-sm font-medium text-red-700">
          {listMessage}
        </p>
      ) : null}
      {/* Six rows hold every pair the service takes: a seventh is never offered. */}
      <div className="flex flex-wrap items-center gap-3">
        <Button variant="secondary" size="sm" onClick={() => append({ key: "", value: "" })} disabled={fields.length >= METADATA_MAX_PAIRS} aria-describedby={fields.length >= METADATA_MAX_PAIRS ? "metadata-full" : undefined}>
          Add metadata
        </Button>
        {fields.length >= METADATA_MAX_PAIRS ? (
          <span id="metadata-full" className="text-xs text-slate-600" data-testid="metadata-full">
            {METADATA_MAX_PAIRS} pairs is the most a record takes.
          </span>
        ) : null}
      </div>
    </fieldset>
  )
}
