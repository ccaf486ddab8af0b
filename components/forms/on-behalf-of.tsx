"use client"

import type { FieldErrors, FieldValues, Path, UseFormRegister } from "react-hook-form"
import { Field, Input } from "@/components/ui/field"

type OnBehalfOf = FieldValues & { identity_id?: string; account_id?: string; recipient_profile_id?: string }

const FIELDS = [
  { name: "identity_id", label: "Identity id", hint: "The end user requesting it (third-party integrations)." },
  { name: "account_id", label: "Account id", hint: "The account it is placed under; the identity must be allowed to act for it." },
  { name: "recipient_profile_id", label: "Recipient profile id", hint: "For directed settlement: the profile that receives the funds." },
] as const

/** The optional "On behalf of" ids, folded away until needed. */
export function OnBehalfOf<T extends OnBehalfOf>({ register, errors }: { register: UseFormRegister<T>; errors: FieldErrors<T> }) {
  const errorOf = (name: string) => (errors as Record<string, { message?: string } | undefined>)[name]?.message
  const open = FIELDS.some((f) => errorOf(f.name))
  return (
    <details className="rounded-md border border-slate-200 px-3 py-2" open={open || undefined}>
      <summary className="cursor-pointer text-sm font-medium text-slate-800">On behalf of (optional)</summary>
      <div className="mt-3 space-y-3">
        {FIELDS.map((f) => (
          <Field key={f.name} label={f.label} hint={f.hint} error={errorOf(f.name)}>
            {(a11y) => <Input {...a11y} autoComplete="off" spellCheck={false} {...register(f.name as Path<T>)} />}
          </Field>
        ))}
      </div>
    </details>
  )
}
