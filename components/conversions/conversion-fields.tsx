"use client"

import { type Control, Controller, type FieldErrors, type UseFormGetValues, type UseFormRegister, type UseFormSetValue } from "react-hook-form"
import { Alert } from "@/components/ui/alert"
import { pasteAmount } from "@/components/forms/paste-amount"
import { Amount } from "@/components/ui/amount"
import { Field, Input, Select } from "@/components/ui/field"
import { formatAmount } from "@/lib/format"
import { CONVERSION_ASSETS, conversionTargets } from "@/lib/schemas/conversion"
import type { Balance } from "@/lib/schemas/records"
import { type ConversionFormValues, PAIR_RULE, fieldMessage, narrowedTarget, sourceShortfall } from "./form-model"

/** From and to: choosing a source narrows the targets to the pairs the service converts. */
export function AssetFields({
  control,
  errors,
  source,
  setValue,
  getValues,
}: {
  control: Control<ConversionFormValues>
  errors: FieldErrors<ConversionFormValues>
  source: string
  setValue: UseFormSetValue<ConversionFormValues>
  getValues: UseFormGetValues<ConversionFormValues>
}) {
  const targets = conversionTargets(source)
  return (
    <>
      <div className="grid gap-4 sm:grid-cols-2">
        <Controller
          control={control}
          name="source_asset"
          render={({ field }) => (
            <Field label="From (source asset)" error={fieldMessage("Source asset", errors.source_asset?.message)}>
              {(a11y) => (
                <Select
                  {...a11y}
                  ref={field.ref}
                  name={field.name}
                  value={field.value}
                  onBlur={field.onBlur}
                  onChange={(event) => {
                    field.onChange(event.target.value)
                    setValue("target_asset", narrowedTarget(event.target.value, getValues("target_asset")), { shouldValidate: true })
                  }}
                >
                  {CONVERSION_ASSETS.map((asset) => (
                    <option key={asset} value={asset}>
                      {asset}
                    </option>
                  ))}
                </Select>
              )}
            </Field>
          )}
        />
        <Controller
          control={control}
          name="target_asset"
          render={({ field }) => (
            <Field label="To (target asset)" error={fieldMessage("Target asset", errors.target_asset?.message)}>
              {(a11y) => (
                <Select {...a11y} ref={field.ref} name={field.name} value={field.value} onBlur={field.onBlur} onChange={(event) => field.onChange(event.target.value)}>
                  {field.value === "" || targets.length > 1 ? <option value="">Choose an asset</option> : null}
                  {targets.map((asset) => (
                    <option key={asset} value={asset}>
                      {asset}
                    </option>
                  ))}
                  {field.value !== "" && !targets.some((t) => t === field.value) ? <option value={field.value}>{field.value}</option> : null}
                </Select>
              )}
            </Field>
          )}
        />
      </div>
      <p className="-mt-3 text-xs text-slate-600">{PAIR_RULE}. Conversions are 1:1.</p>
    </>
  )
}

/** The amount, with the source asset's available balance under it and a warning when it is short. */
export function AmountField({
  register,
  errors,
  source,
  amount,
  balances,
  loadingBalances,
}: {
  register: UseFormRegister<ConversionFormValues>
  errors: FieldErrors<ConversionFormValues>
  source: string
  amount: string
  /** Undefined while they load (or with no profile chosen). */
  balances: readonly Balance[] | undefined
  loadingBalances: boolean
}) {
  const sourceBalance = balances?.find((b) => b.asset === source)
  // Once the balances are in, a profile without a row for the source asset has none of it.
  const gap = sourceShortfall(amount, source, balances)
  return (
    <>
      <Field
        label={`Amount${source ? ` (${source})` : ""}`}
        error={fieldMessage("Amount", errors.amount?.message)}
        hint={
          <span data-testid="source-balance">
            {sourceBalance ? (
              <>
                Available: <Amount value={sourceBalance.available} asset={sourceBalance.asset} />.
              </>
            ) : balances && source ? (
              `No ${source} balance on this profile (available: 0).`
            ) : loadingBalances ? (
              "Loading the balance…"
            ) : null}{" "}
            Up to 2 decimals, more than 0.
          </span>
        }
      >
        {(a11y) => <Input {...a11y} inputMode="decimal" autoComplete="off" spellCheck={false} placeholder="0.00" onPaste={pasteAmount} {...register("amount")} />}
      </Field>
      {gap ? (
        <Alert tone="warning" title={`Not enough ${source} on this profile`}>
          <span data-testid="shortfall">
            Needed {formatAmount(gap.needed, source)} {source}, available {formatAmount(gap.available, source)} {source} (short by{" "}
            {formatAmount(gap.short, source)}). The service will refuse it unless funds arrive first.
          </span>
        </Alert>
      ) : null}
    </>
  )
}
