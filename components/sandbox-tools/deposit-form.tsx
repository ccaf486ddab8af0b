"use client"

import { zodResolver } from "@hookform/resolvers/zod"
import { useForm, useWatch } from "react-hook-form"
import { ProfileOptions } from "@/components/profile/profile-picker"
import { Alert } from "@/components/ui/alert"
import { pasteAmount } from "@/components/forms/paste-amount"
import { Amount } from "@/components/ui/amount"
import { Button } from "@/components/ui/button"
import { Field, Input, Select } from "@/components/ui/field"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { ApiProblemError } from "@/lib/queries/api"
import { useBalancesQuery, useSelectedProfile } from "@/lib/queries/profiles"
import { useSandboxDepositMutation } from "@/lib/queries/sandbox"
import { SANDBOX_ASSETS } from "@/lib/schemas/sandbox-tools"
import { assetDecimals } from "@/lib/schemas/assets"
import { type SandboxDepositRequest, sandboxDepositRequestSchema } from "@/lib/schemas/sandbox-tools"
import type { Profile } from "@/lib/schemas/records"

// The three fields side by side from the sm breakpoint; the placeholder uses the same grid.
const FIELDS = "grid gap-3 sm:grid-cols-[1.4fr_1fr_1.4fr]"

function amountHint(asset: string): string {
  return `At most ${assetDecimals(asset)} decimals for ${asset}.`
}

function DepositFormFields({ profiles, profileId, onProfile }: { profiles: Profile[]; profileId: string; onProfile: (id: string) => void }) {
  const deposit = useSandboxDepositMutation()
  const {
    control,
    register,
    handleSubmit,
    setError,
    trigger,
    resetField,
    formState: { errors, isSubmitted },
  } = useForm<SandboxDepositRequest>({
    resolver: zodResolver(sandboxDepositRequestSchema),
    defaultValues: { profile_id: profileId, asset: "USD", amount: "" },
  })
  const [watchedProfile, asset] = useWatch({ control, name: ["profile_id", "asset"] })
  const balances = useBalancesQuery(watchedProfile || null)
  const balance = balances.data?.find((b) => b.asset === asset)
  const places = assetDecimals(asset)

  const submit = (body: SandboxDepositRequest) =>
    deposit.mutate(body, {
      onSuccess: () => resetField("amount"),
      onError: (error) => {
        if (!(error instanceof ApiProblemError)) return
        for (const field of ["profile_id", "asset", "amount"] as const) {
          const message = error.fields[field]
          if (message) setError(field, { message })
        }
      },
    })

  return (
    <form aria-label="Deposit funds" noValidate className="space-y-4" onSubmit={(event) => void handleSubmit(submit)(event)}>
      <div className={FIELDS}>
        <Field label="Profile" error={errors.profile_id?.message}>
          {(a11y) => (
            <Select {...a11y} {...register("profile_id", { onChange: (event: { target: { value: string } }) => onProfile(event.target.value) })}>
              <ProfileOptions profiles={profiles} />
            </Select>
          )}
        </Field>
        <Field label="Asset" error={errors.asset?.message}>
          {(a11y) => (
            <Select
              {...a11y}
              {...register("asset", {
                onChange: () => {
                  if (isSubmitted) void trigger("amount")
                },
              })}
            >
              {SANDBOX_ASSETS.map((a) => (
                <option key={a} value={a}>
                  {a}
                </option>
              ))}
            </Select>
          )}
        </Field>
        <Field label="Amount" error={errors.amount?.message} hint={amountHint(asset)}>
          {(a11y) => <Input {...a11y} inputMode="decimal" autoComplete="off" placeholder={places === 2 ? "1000.00" : "0.5"} onPaste={pasteAmount} {...register("amount")} />}
        </Field>
      </div>
      <p className="text-sm text-slate-700">
        {asset} balance now:{" "}
        <span data-testid="deposit-balance">
          {balances.isPending ? "loading…" : <Amount value={balance?.available ?? "0"} asset={asset} />}
        </span>{" "}
        available
      </p>
      <Button type="submit" busy={deposit.isPending}>
        Deposit
      </Button>
      {deposit.isSuccess ? (
        <Alert tone="success" title="Deposited">
          <Amount value={deposit.data.amount} asset={deposit.data.asset} /> into{" "}
          {profiles.find((p) => p.id === deposit.data.profile_id)?.nickname ?? deposit.data.profile_id}.
        </Alert>
      ) : null}
      <ProblemAlert error={deposit.error} />
    </form>
  )
}

/**
 * The form's shape while the profiles load: the same fields, disabled, so that nothing
 * under it moves when they arrive.
 */
function DepositFormPlaceholder() {
  return (
    <div className="space-y-4" aria-busy="true" data-testid="deposit-placeholder">
      <div className={FIELDS}>
        <Field label="Profile">
          {(a11y) => (
            <Select {...a11y} disabled>
              <option>Loading profiles…</option>
            </Select>
          )}
        </Field>
        <Field label="Asset">
          {(a11y) => (
            <Select {...a11y} disabled>
              <option>USD</option>
            </Select>
          )}
        </Field>
        <Field label="Amount" hint={amountHint("USD")}>
          {(a11y) => <Input {...a11y} disabled />}
        </Field>
      </div>
      <p className="text-sm text-slate-700">USD balance now: loading… available</p>
      <Button type="submit" disabled>
        Deposit
      </Button>
    </div>
  )
}

/** Funds a sandbox profile: the amount carries at most the asset's decimals. */
export function DepositForm() {
  const { profileId, profiles, setProfileId, isLoading, error } = useSelectedProfile()
  if (error) return <ProblemAlert error={error} />
  if (isLoading || !profileId) return <DepositFormPlaceholder />
  return <DepositFormFields profiles={profiles} profileId={profileId} onProfile={setProfileId} />
}
