"use client"

import { useId, useState } from "react"
import { Alert } from "@/components/ui/alert"
import { Button } from "@/components/ui/button"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { PolicyChangesTable } from "@/components/approvals/policy-changes-table"
import { LIMIT_ROLES, type LimitsDraft, type PolicyDraft, type TierDraft, draftOf, formPath, newStaffRow, newTierRow, policyFromDraft } from "@/components/approvals/policy-draft"
import { formatCount } from "@/lib/format"
import { ApiProblemError } from "@/lib/queries/api"
import { useSavePolicyMutation } from "@/lib/queries/approvals"
import { APPROVER_ROLES, type Policy, POLICY_CURRENCIES } from "@/lib/schemas/approvals"
import { type PolicyChange, policyDiff } from "@/lib/schemas/policy-diff"

type Errors = Record<string, string>

/** One input of the form: its name says what it sets; its error says which field and which rule. */
function PolicyInput({
  label,
  path,
  value,
  onChange,
  errors,
  inputMode = "decimal",
  wide = false,
}: {
  label: string
  path: string
  value: string
  onChange: (value: string) => void
  errors: Errors
  inputMode?: "decimal" | "numeric" | "email"
  wide?: boolean
}) {
  const id = useId()
  const error = errors[path]
  return (
    <div className="space-y-0.5">
      <label htmlFor={id} className="block text-xs font-medium text-slate-700">
        {label}
      </label>
      <input
        id={id}
        name={path}
        data-path={path}
        inputMode={inputMode === "email" ? "email" : inputMode}
        type={inputMode === "email" ? "email" : "text"}
        autoComplete="off"
        className={`block rounded-md border bg-white px-2 py-1 text-sm tabular ${wide ? "w-56" : "w-28"} ${error ? "border-red-600" : "border-slate-300"}`}
        value={value}
        aria-invalid={Boolean(error)}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(e) => onChange(e.target.value)}
      />
      {error ? (
        <p id={`${id}-error`} className="max-w-56 text-xs font-medium text-red-700" data-testid="policy-field-error">
          {label}: {error}
        </p>
      ) : null}
    </div>
  )
}

/** A per-currency row: one input per currency, empty for none. */
function CurrencyInputs({
  what,
  path,
  values,
  onChange,
  errors,
}: {
  what: string
  path: string
  values: Record<string, string>
  onChange: (values: Record<string, string>) => void
  errors: Errors
}) {
  return (
    <div className="flex flex-wrap gap-2">
      {POLICY_CURRENCIES.map((currency) => (
        <PolicyInput
          key={currency}
          label={`${what}, ${currency}`}
          path={`${path}.${currency}`}
          value={values[currency] ?? ""}
          onChange={(v) => onChange({ ...values, [currency]: v })}
          errors={errors}
        />
      ))}
    </div>
  )
}

function LimitsInputs({ who, path, limits, onChange, errors }: { who: string; path: string; limits: LimitsDraft; onChange: (l: LimitsDraft) => void; errors: Errors }) {
  return (
    <div className="space-y-2">
      <CurrencyInputs what={`${who} per order`} path={`${path}.per_order`} values={limits.per_order} onChange={(v) => onChange({ ...limits, per_order: v })} errors={errors} />
      <CurrencyInputs what={`${who} per day`} path={`${path}.per_day`} values={limits.per_day} onChange={(v) => onChange({ ...limits, per_day: v })} errors={errors} />
    </div>
  )
}

/**
 * The approval policy as a form: each threshold, limit and setting its own input, checked
 * by the API's schema as it is reviewed (each error names its field and rule). Review
 * shows what changes, field by field; nothing applies until that is confirmed.
 */
export function PolicyForm({ policy, onDone }: { policy: Policy; onDone: () => void }) {
  const [draft, setDraft] = useState<PolicyDraft>(() => draftOf(policy))
  const [errors, setErrors] = useState<Errors>({})
  const [review, setReview] = useState<{ next: Policy; changes: PolicyChange[] } | null>(null)
  const save = useSavePolicyMutation({ onSuccess: onDone })
  const serverErrors = save.error instanceof ApiProblemError ? Object.fromEntries(Object.entries(save.error.fields).map(([p, rule]) => [formPath(p, draft), rule])) : {}
  const shown = { ...serverErrors, ...errors }
  const edit = (next: PolicyDraft) => {
    setDraft(next)
    setReview(null)
  }
  const onReview = () => {
    save.reset()
    const result = policyFromDraft(draft, policy)
    if (result.errors) {
      setErrors(result.errors)
      return
    }
    setErrors({})
    setReview({ next: result.policy, changes: policyDiff(policy, result.policy) })
  }
  const errorCount = Object.keys(shown).length

  if (review) {
    return (
      <div className="space-y-3" data-testid="policy-review">
        {review.changes.length === 0 ? (
          <Alert tone="info" title="Nothing changes">
            The form says what the policy says now.
          </Alert>
        ) : (
          <>
            <p className="text-sm">
              {review.changes.length === 1 ? "1 field changes" : `${formatCount(review.changes.length)} fields change`}. With another active admin the change
              waits for their approval (with their passkey); if you are the only one, it applies at once (with your passkey) and is flagged on the audit
              trail. Either way it goes on the audit trail with the policy before and after.
            </p>
            <PolicyChangesTable changes={review.changes} caption="What this change changes" testId="policy-diff" />
          </>
        )}
        {save.error ? <ProblemAlert error={save.error} /> : null}
        <div className="flex flex-wrap gap-2">
          {review.changes.length > 0 ? (
            <Button busy={save.isPending} onClick={() => save.mutate(review.next)} data-testid="apply-policy">
              Apply {review.changes.length === 1 ? "this change" : "these changes"}
            </Button>
          ) : null}
          <Button variant="secondary" onClick={() => setReview(null)} data-testid="back-to-policy">
            Back to editing
          </Button>
        </div>
      </div>
    )
  }

  return (
    <form
      aria-label="Approval policy"
      className="space-y-5"
      noValidate
      onSubmit={(e) => {
        e.preventDefault()
        onReview()
      }}
    >
      <fieldset className="space-y-2">
        <legend className="text-sm font-semibold">Orders at or over these sizes wait for a second person (empty: never)</legend>
        <CurrencyInputs
          what="Executions need approval at"
          path="approval_thresholds.execution"
          values={draft.thresholds.execution}
          onChange={(v) => edit({ ...draft, thresholds: { ...draft.thresholds, execution: v } })}
          errors={shown}
        />
        <CurrencyInputs
          what="Conversions need approval at"
          path="approval_thresholds.conversion"
          values={draft.thresholds.conversion}
          onChange={(v) => edit({ ...draft, thresholds: { ...draft.thresholds, conversion: v } })}
          errors={shown}
        />
      </fieldset>
      <fieldset className="space-y-2">
        <legend className="text-sm font-semibold">Orders at or over these sizes need the maker&apos;s passkey to be placed (empty: never)</legend>
        <CurrencyInputs what="Passkey for orders at" path="step_up_over" values={draft.step_up_over} onChange={(v) => edit({ ...draft, step_up_over: v })} errors={shown} />
      </fieldset>
      <fieldset className="space-y-3" data-testid="policy-tiers">
        <legend className="text-sm font-semibold">Approval tiers: more approvers as the amount grows (none: one approver, a trader or an admin)</legend>
        {draft.tiers.map((tier, i) => {
          const update = (next: Partial<TierDraft>) => edit({ ...draft, tiers: draft.tiers.map((t, j) => (j === i ? { ...t, ...next } : t)) })
          const rolesError = shown[`approval_tiers.${i}.roles`]
          const startError = shown[`approval_tiers.${i}.at_or_over`]
          return (
            <div key={tier.key} className="space-y-2 rounded-md border border-slate-200 p-3" data-testid="tier-row">
              <CurrencyInputs what={`Tier ${i + 1} starts at`} path={`approval_tiers.${i}.at_or_over`} values={tier.at_or_over} onChange={(v) => update({ at_or_over: v })} errors={shown} />
              {startError ? (
                <p className="text-xs font-medium text-red-700" data-testid="policy-field-error">
                  Tier {i + 1} starts at: {startError}
                </p>
              ) : null}
              <div className="flex flex-wrap items-end gap-4">
                <PolicyInput label={`Tier ${i + 1} approvers`} path={`approval_tiers.${i}.approvers`} inputMode="numeric" value={tier.approvers} onChange={(v) => update({ approvers: v })} errors={shown} />
                <fieldset className="flex items-center gap-3" aria-invalid={Boolean(rolesError)}>
                  <legend className="text-xs font-medium text-slate-700">Tier {i + 1} roles that may approve</legend>
                  {APPROVER_ROLES.map((role) => (
                    <label key={role} className="flex items-center gap-1 text-sm">
                      <input type="checkbox" className="h-4 w-4" name={`approval_tiers.${i}.roles.${role}`} checked={tier.roles[role]} onChange={(e) => update({ roles: { ...tier.roles, [role]: e.target.checked } })} />
                      {role}
                    </label>
                  ))}
                </fieldset>
                <Button variant="ghost" size="sm" onClick={() => edit({ ...draft, tiers: draft.tiers.filter((_, j) => j !== i) })}>
                  Remove tier {i + 1}
                </Button>
              </div>
              {rolesError ? (
                <p className="text-xs font-medium text-red-700" data-testid="policy-field-error">
                  Tier {i + 1} roles: {rolesError}
                </p>
              ) : null}
            </div>
          )
        })}
        <Button variant="secondary" size="sm" onClick={() => edit({ ...draft, tiers: [...draft.tiers, newTierRow()] })} data-testid="add-tier">
          Add a tier
        </Button>
      </fieldset>
      <fieldset className="flex flex-wrap gap-4">
        <legend className="mb-2 text-sm font-semibold">Requests</legend>
        <PolicyInput
          label="Limit price tolerance (%)"
          path="price_tolerance_percent"
          value={draft.price_tolerance_percent}
          onChange={(v) => edit({ ...draft, price_tolerance_percent: v })}
          errors={shown}
        />
        <PolicyInput
          label="Requests expire after (minutes)"
          path="request_ttl_minutes"
          inputMode="numeric"
          value={draft.request_ttl_minutes}
          onChange={(v) => edit({ ...draft, request_ttl_minutes: v })}
          errors={shown}
        />
      </fieldset>
      <fieldset className="space-y-3">
        <legend className="text-sm font-semibold">Limits by role (empty: no limit)</legend>
        {LIMIT_ROLES.map((role) => (
          <LimitsInputs
            key={role}
            who={`${role[0]!.toUpperCase()}${role.slice(1)}s`}
            path={`role_limits.${role}`}
            limits={draft.roles[role]!}
            onChange={(l) => edit({ ...draft, roles: { ...draft.roles, [role]: l } })}
            errors={shown}
          />
        ))}
      </fieldset>
      <fieldset className="space-y-3">
        <legend className="text-sm font-semibold">Limits for one staff member (instead of their role&apos;s)</legend>
        {draft.staff.map((row, i) => {
          const update = (next: Partial<typeof row>) => edit({ ...draft, staff: draft.staff.map((r, j) => (j === i ? { ...r, ...next } : r)) })
          const who = row.email.trim() || `Staff member ${i + 1}`
          return (
            <div key={row.key} className="space-y-2 rounded-md border border-slate-200 p-3" data-testid="staff-limits-row">
              <div className="flex flex-wrap items-end gap-2">
                <PolicyInput label={`Staff member ${i + 1} email`} path={`staff.${i}.email`} inputMode="email" wide value={row.email} onChange={(v) => update({ email: v })} errors={shown} />
                <Button variant="ghost" size="sm" onClick={() => edit({ ...draft, staff: draft.staff.filter((_, j) => j !== i) })}>
                  Remove {who}
                </Button>
              </div>
              <LimitsInputs who={who} path={`staff.${i}`} limits={row} onChange={(l) => update(l)} errors={shown} />
            </div>
          )
        })}
        <Button variant="secondary" size="sm" onClick={() => edit({ ...draft, staff: [...draft.staff, newStaffRow()] })}>
          Add a staff member
        </Button>
      </fieldset>
      {errorCount > 0 ? (
        <p role="alert" className="text-sm font-medium text-red-700" data-testid="policy-errors">
          {errorCount === 1 ? "1 field needs fixing" : `${errorCount} fields need fixing`}; each says which rule it breaks.
        </p>
      ) : null}
      {save.error && !(save.error instanceof ApiProblemError && Object.keys(save.error.fields).length > 0) ? <ProblemAlert error={save.error} /> : null}
      <div className="flex flex-wrap gap-2">
        <Button type="submit" data-testid="review-policy">
          Review changes
        </Button>
        <Button variant="ghost" onClick={onDone}>
          Cancel
        </Button>
      </div>
    </form>
  )
}
