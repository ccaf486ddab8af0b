"use client"

import { zodResolver } from "@hookform/resolvers/zod"
import Link from "next/link"
import { useForm } from "react-hook-form"
import { z } from "zod"
import { ProfileOptions } from "@/components/profile/profile-picker"
import { Alert } from "@/components/ui/alert"
import { Amount } from "@/components/ui/amount"
import { Button } from "@/components/ui/button"
import { Field, Input, Select } from "@/components/ui/field"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { formatAmount, formatCount } from "@/lib/format"
import { ApiProblemError } from "@/lib/queries/api"
import { useSelectedProfile } from "@/lib/queries/profiles"
import { useLostRecordMutation, useSandboxHistoryMutation, useSilentMovementMutation } from "@/lib/queries/sandbox"
import { type LostRecord, lostRecordRequestSchema } from "@/lib/schemas/lost-record"
import { SANDBOX_ASSETS } from "@/lib/schemas/sandbox-tools"
import { type SilentMovement, silentMovementRequestSchema } from "@/lib/schemas/silent-movement"
import type { Profile } from "@/lib/schemas/records"

/**
 * The sandbox's tools for the day's books: a generated past week so the statements have
 * something to show on a cold start, and the two faults the statements exist to catch.
 */

/** Puts a 400's field messages on the form's fields. */
function fieldErrors<F extends string>(error: unknown, fields: readonly F[], setError: (field: F, error: { message: string }) => void): void {
  if (!(error instanceof ApiProblemError)) return
  for (const field of fields) {
    const message = error.fields[field]
    if (message) setError(field, { message })
  }
}

const seedFormSchema = z.object({ seed: z.string().trim().regex(/^[1-9][0-9]{0,9}$/, "must be a whole number from 1") })

function HistoryForm() {
  const history = useSandboxHistoryMutation()
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors },
  } = useForm<z.infer<typeof seedFormSchema>>({ resolver: zodResolver(seedFormSchema), defaultValues: { seed: "1" } })
  const submit = ({ seed }: z.infer<typeof seedFormSchema>) =>
    // A seed picks the week's draws; it is a count, not an amount.
    history.mutate({ seed: Number.parseInt(seed, 10) }, { onError: (error) => fieldErrors(error, ["seed"] as const, setError) })
  const answer = history.data
  return (
    <form aria-label="Generate a past week" noValidate className="space-y-3" onSubmit={(event) => void handleSubmit(submit)(event)}>
      <p className="text-sm text-slate-700">
        Fills the 7 UTC days before today with settled trades, conversions, orchestrations and deposits, the desk&apos;s intents and approvals, and a
        balance snapshot at each cutoff. The balances now stay as they are. Once per sandbox.
      </p>
      <div className="flex flex-wrap items-end gap-3">
        <Field label="Seed" error={errors.seed?.message} hint="The same seed gives the same week." className="w-40">
          {(a11y) => <Input {...a11y} inputMode="numeric" autoComplete="off" {...register("seed")} />}
        </Field>
        <Button type="submit" busy={history.isPending}>
          Generate a past week
        </Button>
      </div>
      {answer ? (
        <Alert tone="success" title="Past week generated">
          {answer.from.slice(0, 10)} to {answer.to.slice(0, 10)} (UTC): {formatCount(answer.counts.executions)} executions,{" "}
          {formatCount(answer.counts.conversions)} conversions, {formatCount(answer.counts.orchestrations)} orchestrations,{" "}
          {formatCount(answer.counts.deposits)} deposits; {formatCount(answer.counts.console_placed)} placed through the console (
          {formatCount(answer.counts.approvals)} approved by a second person), {formatCount(answer.counts.snapshots)} snapshots.{" "}
          <Link className="underline" href="/statements">
            Open the statements
          </Link>
        </Alert>
      ) : null}
      <ProblemAlert error={history.error} />
    </form>
  )
}

function SilentMovementForm({ profiles, profileId }: { profiles: Profile[]; profileId: string }) {
  const move = useSilentMovementMutation()
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors },
  } = useForm<SilentMovement>({ resolver: zodResolver(silentMovementRequestSchema), defaultValues: { profile_id: profileId, asset: "USD", amount: "3.50" } })
  const submit = (body: SilentMovement) => move.mutate(body, { onError: (error) => fieldErrors(error, ["profile_id", "asset", "amount"] as const, setError) })
  const answer = move.data
  return (
    <form aria-label="Move a balance without a record" noValidate className="space-y-3" onSubmit={(event) => void handleSubmit(submit)(event)}>
      <p className="text-sm text-slate-700">The balance changes and the service keeps no record of it: today&apos;s statement must show the difference.</p>
      <div className="grid gap-3 sm:grid-cols-[1.4fr_1fr_1.2fr]">
        <Field label="Profile" error={errors.profile_id?.message}>
          {(a11y) => (
            <Select {...a11y} {...register("profile_id")}>
              <ProfileOptions profiles={profiles} />
            </Select>
          )}
        </Field>
        <Field label="Asset" error={errors.asset?.message}>
          {(a11y) => (
            <Select {...a11y} {...register("asset")}>
              {SANDBOX_ASSETS.map((a) => (
                <option key={a} value={a}>
                  {a}
                </option>
              ))}
            </Select>
          )}
        </Field>
        <Field label="Signed amount" error={errors.amount?.message} hint='"-3.50" takes it away.'>
          {(a11y) => <Input {...a11y} inputMode="decimal" autoComplete="off" {...register("amount")} />}
        </Field>
      </div>
      <Button type="submit" busy={move.isPending}>
        Move a balance without a record
      </Button>
      {answer ? (
        <Alert tone="success" title="Balance moved without a record">
          {formatAmount(answer.amount, answer.asset)} {answer.asset} in {profiles.find((p) => p.id === answer.profile_id)?.nickname ?? answer.profile_id}; available now{" "}
          <Amount value={answer.available} asset={answer.asset} />.
        </Alert>
      ) : null}
      <ProblemAlert error={move.error} />
    </form>
  )
}

function LostRecordForm({ profiles }: { profiles: Profile[] }) {
  const lose = useLostRecordMutation()
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors },
  } = useForm<LostRecord>({ resolver: zodResolver(lostRecordRequestSchema), defaultValues: { record_id: "" } })
  const submit = (body: LostRecord) => lose.mutate(body, { onError: (error) => fieldErrors(error, ["record_id"] as const, setError) })
  const answer = lose.data
  return (
    <form aria-label="Lose a record" noValidate className="space-y-3" onSubmit={(event) => void handleSubmit(submit)(event)}>
      <p className="text-sm text-slate-700">
        The service forgets a quote execution or conversion (its balance moves stay): the statement&apos;s reconciliation lists it as missing at the service.
      </p>
      <div className="flex flex-wrap items-end gap-3">
        <Field label="Execution or conversion id" error={errors.record_id?.message} className="min-w-0 flex-1">
          {(a11y) => <Input {...a11y} autoComplete="off" spellCheck={false} className="font-mono" {...register("record_id")} />}
        </Field>
        <Button type="submit" busy={lose.isPending}>
          Lose a record
        </Button>
      </div>
      {answer ? (
        <Alert tone="success" title="Record lost">
          The {answer.kind} <span className="font-mono break-all">{answer.record_id}</span> of{" "}
          {profiles.find((p) => p.id === answer.profile_id)?.nickname ?? answer.profile_id} is gone from the service.
        </Alert>
      ) : null}
      <ProblemAlert error={lose.error} />
    </form>
  )
}

export function BooksTools() {
  const { profileId, profiles, isLoading, error } = useSelectedProfile()
  return (
    <div className="space-y-6">
      <HistoryForm />
      <div className="border-t border-slate-200 pt-4">
        {error ? <ProblemAlert error={error} /> : isLoading || !profileId ? <p className="text-sm text-slate-700">Loading profiles…</p> : <SilentMovementForm profiles={profiles} profileId={profileId} />}
      </div>
      <div className="border-t border-slate-200 pt-4">
        <LostRecordForm profiles={profiles} />
      </div>
    </div>
  )
}
