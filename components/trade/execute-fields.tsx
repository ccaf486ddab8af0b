"use client"

import { memo, useEffect, useRef } from "react"
import { type Control, type UseFormRegister, type UseFormSetValue, type UseFormTrigger, useWatch } from "react-hook-form"
import {
  type AmountMode,
  BALANCE_SHARES,
  type ExecuteFormValues,
  amountForShare,
  amountLabel,
  estimateAmounts,
  paymentOf,
} from "@/components/trade/execute-model"
import { PreTradeChecks } from "@/components/forms/pre-trade-checks"
import { rememberUnit } from "@/components/trade/unit-memory"
import { pasteAmount } from "@/components/forms/paste-amount"
import { Amount } from "@/components/ui/amount"
import { Field, Input } from "@/components/ui/field"
import { executionSize } from "@/lib/limits"
import { availableOf, preTradeVerdict } from "@/lib/pre-trade"
import { usePreTradeFactsQuery } from "@/lib/queries/limits"
import { useBalancesQuery } from "@/lib/queries/profiles"
import type { Quote } from "@/lib/schemas/records"

// The execute form's inputs. Each watches only what it shows, so typing re-renders the
// field and its preview, not the form.

/**
 * Metadata rules span rows (at most 6 pairs, distinct keys): any change to a row checks
 * them all again, so the list's own message appears and clears as you type.
 */
export function MetadataRevalidation({ control, trigger }: { control: Control<ExecuteFormValues>; trigger: UseFormTrigger<ExecuteFormValues> }) {
  const rows = useWatch({ control, name: "metadata" })
  const first = useRef(true)
  useEffect(() => {
    if (first.current) {
      first.current = false
      return
    }
    void trigger("metadata")
  }, [rows, trigger])
  return null
}

/** The estimate of the other amount, and the shortfall warning: they re-render as the amount is typed, the form does not. */
export const AmountPreview = memo(function AmountPreview({
  control,
  quote,
  profileId,
}: {
  control: Control<ExecuteFormValues>
  quote: Quote
  profileId: string
}) {
  const [mode, amount] = useWatch({ control, name: ["mode", "amount"] })
  const balances = useBalancesQuery(profileId)
  const facts = usePreTradeFactsQuery()
  const amounts = estimateAmounts(quote, mode, amount)
  if (!amounts) {
    return (
      <p className="text-sm text-slate-600" data-testid="estimate">
        Enter an amount to see both sides of the trade.
      </p>
    )
  }
  const payment = paymentOf(quote, amounts)
  const buying = quote.side === "BUY"
  const verdict = preTradeVerdict("execution", executionSize(mode === "crypto" ? { base_amount: amounts.base_amount } : { quote_amount: amounts.quote_amount }, quote), facts.data)
  const available = availableOf(payment.asset, balances.data)
  return (
    <div className="space-y-2">
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm" data-testid="estimate" aria-live="polite">
        <dt className="text-slate-600">{buying ? "You pay" : "You sell"}</dt>
        <dd data-testid="estimate-pay">
          <Amount value={payment.amount} asset={payment.asset} />
        </dd>
        <dt className="text-slate-600">You receive</dt>
        <dd data-testid="estimate-receive">
          {buying ? <Amount value={amounts.base_amount} asset={quote.base_asset} /> : <Amount value={amounts.quote_amount} asset={quote.quote_asset} />}
        </dd>
      </dl>
      <p className="text-xs text-slate-600">
        {mode === "crypto"
          ? `The ${quote.quote_asset} amount is rounded ${buying ? "up" : "down"} to 2 decimals, as the service computes it.`
          : `The ${quote.base_asset} amount is rounded ${buying ? "down" : "up"} to 8 decimals, as the service computes it.`}
      </p>
      <PreTradeChecks verdict={verdict} funds={{ asset: payment.asset, needed: payment.amount, available }} other={{ amount: amounts.base_amount, asset: quote.base_asset }} />
    </div>
  )
})

export function ModeChoice({ register, quote }: { register: UseFormRegister<ExecuteFormValues>; quote: Quote }) {
  const options: { value: AmountMode; label: string }[] = [
    { value: "crypto", label: `${quote.base_asset} (up to 8 decimals)` },
    { value: "fiat", label: `${quote.quote_asset} (up to 2 decimals)` },
  ]
  return (
    <fieldset>
      <legend className="text-sm font-medium text-slate-800">Enter the amount in</legend>
      <div className="mt-1 flex flex-wrap gap-x-6 gap-y-1">
        {options.map((o) => (
          <label key={o.value} className="inline-flex items-center gap-2 text-sm">
            <input type="radio" value={o.value} data-testid={`mode-${o.value}`} {...register("mode", { deps: ["amount"] })} />
            {o.label}
          </label>
        ))}
      </div>
    </fieldset>
  )
}

/** Remembers the unit the amount is typed in, per market (components/trade/unit-memory). */
export function UnitMemory({ control, market }: { control: Control<ExecuteFormValues>; market: string }) {
  const mode = useWatch({ control, name: "mode" })
  const first = useRef(true)
  useEffect(() => {
    // Opening the ticket is not a choice: only a change is remembered.
    if (first.current) {
      first.current = false
      return
    }
    rememberUnit(market, mode)
  }, [market, mode])
  return null
}

export function AmountField({
  control,
  register,
  setValue,
  quote,
  error,
}: {
  control: Control<ExecuteFormValues>
  register: UseFormRegister<ExecuteFormValues>
  setValue: UseFormSetValue<ExecuteFormValues>
  quote: Quote
  error: string | undefined
}) {
  const mode = useWatch({ control, name: "mode" })
  const other = mode === "crypto" ? quote.quote_asset : quote.base_asset
  return (
    <Field
      label={amountLabel(mode, quote)}
      error={error}
      hint={
        <>
          {mode === "crypto" ? "More than 0, at most 8 decimals." : "More than 0, at most 2 decimals."}{" "}
          <span data-testid="unit-hint">
            <kbd className="font-mono">U</kbd> switches to {other}.
          </span>
        </>
      }
    >
      {(a11y) => (
        <Input
          {...a11y}
          inputMode="decimal"
          autoComplete="off"
          spellCheck={false}
          data-testid="amount"
          onPaste={pasteAmount}
          aria-keyshortcuts="U"
          {...register("amount")}
          onKeyDown={(event) => {
            // No amount has a letter in it: U switches the unit, the figure stays as typed.
            if ((event.key === "u" || event.key === "U") && !event.ctrlKey && !event.metaKey && !event.altKey) {
              event.preventDefault()
              setValue("mode", mode === "crypto" ? "fiat" : "crypto", { shouldDirty: true })
              setValue("amount", event.currentTarget.value, { shouldValidate: true })
            }
          }}
        />
      )}
    </Field>
  )
}

/**
 * The paying balance (BUY pays the quote asset, SELL the base asset) and shortcuts that
 * fill the amount with a share of it, rounded down to the amount's decimals.
 */
export function BalanceShare({
  control,
  setValue,
  quote,
  profileId,
}: {
  control: Control<ExecuteFormValues>
  setValue: UseFormSetValue<ExecuteFormValues>
  quote: Quote
  profileId: string
}) {
  const mode = useWatch({ control, name: "mode" })
  const balances = useBalancesQuery(profileId)
  const asset = quote.side === "BUY" ? quote.quote_asset : quote.base_asset
  const available = availableOf(asset, balances.data)
  return (
    <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-sm" data-testid="available">
      <span className="text-slate-600">
        Available{" "}
        <span className="font-medium text-slate-900" data-testid="available-amount">
          {available === undefined ? "…" : <Amount value={available} asset={asset} />}
        </span>
      </span>
      <span role="group" aria-label={`Fill the amount with a share of the ${asset} available`} className="flex gap-1">
        {BALANCE_SHARES.map((share) => {
          const amount = available === undefined ? null : amountForShare(quote, mode, available, share)
          return (
            <button
              key={share}
              type="button"
              disabled={amount === null}
              onClick={() => {
                if (amount !== null) setValue("amount", amount, { shouldValidate: true, shouldDirty: true })
              }}
              className="rounded px-2 py-0.5 text-xs font-semibold text-slate-800 ring-1 ring-inset ring-slate-300 hover:bg-slate-100 disabled:text-slate-400"
              data-testid={`share-${share}`}
            >
              {share === 100 ? "Max" : `${share} %`}
            </button>
          )
        })}
      </span>
    </div>
  )
}
