"use client"

import { useMutation, useQueryClient } from "@tanstack/react-query"
import { useRouter } from "next/navigation"
import { useForm } from "react-hook-form"
import { Button } from "@/components/ui/button"
import { Field, Input } from "@/components/ui/field"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { ApiProblemError } from "@/lib/queries/api"
import { fetchConversionLookup } from "@/lib/queries/conversions"
import { conversionKeys } from "@/lib/queries/keys"
import { fieldMessage } from "@/components/forms/field-message"

type LookupValues = { q: string }

// serviceRefIdSchema's rules (any ref_id a record can carry; ids fit them too), as
// react-hook-form rules: no zod on this page. Sent as pasted: the look-up also tries it
// without the spaces around it, and a ref_id may itself start or end with one.
const lookupRules = {
  validate: (value: string) => value.trim() !== "" || "is required",
  maxLength: { value: 255, message: "at most 255 characters" },
}

/**
 * "Where is conversion X?": paste its id or its ref_id and go straight to the record. An
 * unknown one says so under the box.
 */
export function ConversionLookup() {
  const router = useRouter()
  const queryClient = useQueryClient()
  const form = useForm<LookupValues>({ defaultValues: { q: "" } })
  const { register, handleSubmit, setError, formState } = form
  const lookup = useMutation({
    mutationFn: (q: string) => fetchConversionLookup(q),
    onSuccess: ({ conversion }) => {
      queryClient.setQueryData(conversionKeys.detail(conversion.id), conversion)
      router.push(`/conversions/${encodeURIComponent(conversion.id)}`)
    },
    onError: (error) => {
      if (error instanceof ApiProblemError && (error.status === 404 || error.status === 400)) {
        setError("q", { type: "server", message: error.fields.q ?? error.problem.detail ?? "No conversion matches." })
      }
    },
  })
  const onSubmit = handleSubmit(({ q }) => lookup.mutate(q))
  const message = formState.errors.q?.message
  const otherError = lookup.error instanceof ApiProblemError && (lookup.error.status === 404 || lookup.error.status === 400) ? null : lookup.error
  return (
    <form role="search" aria-label="Find a conversion" noValidate onSubmit={(event) => void onSubmit(event)} className="space-y-3">
      <div className="flex flex-wrap items-start gap-3">
        <Field
          label="Conversion id or ref_id"
          className="min-w-72 flex-1"
          error={message?.startsWith("No conversion") ? message : fieldMessage("The id or ref_id", message)}
          hint="Paste either one; the console tries the id first, then the ref_id."
        >
          {(a11y) => <Input {...a11y} autoComplete="off" spellCheck={false} className="font-mono" {...register("q", lookupRules)} />}
        </Field>
        <Button type="submit" className="mt-6" busy={lookup.isPending || (lookup.isSuccess && !message)}>
          Find
        </Button>
      </div>
      {otherError ? <ProblemAlert error={otherError} /> : null}
    </form>
  )
}
