"use client"

import { useState } from "react"
import { Button } from "@/components/ui/button"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { usePreferencesQuery, useSavePreferencesMutation } from "@/lib/queries/inbox"
import { NOTIFY_KIND_LABELS, type Preference } from "@/lib/schemas/notify"

/** Per kind: in the console (the inbox) and by email. */
export function PreferencesForm() {
  const query = usePreferencesQuery()
  const save = useSavePreferencesMutation()
  // The person's edits over what was saved.
  const [edited, setDraft] = useState<Preference[] | null>(null)
  const draft = edited ?? query.data?.items
  if (!draft) return query.error ? <ProblemAlert error={query.error} /> : <p className="text-sm text-slate-600">Loading…</p>
  const set = (kind: string, field: "console" | "email", value: boolean) => setDraft(draft.map((p) => (p.kind === kind ? { ...p, [field]: value } : p)))
  return (
    <form
      className="space-y-3"
      onSubmit={(e) => {
        e.preventDefault()
        save.mutate(draft)
      }}
    >
      {query.data && !query.data.email_configured ? <p className="text-sm text-slate-700">Email is not set up on this console (SMTP_URL): your email choices apply once it is.</p> : null}
      <table className="w-full text-sm">
        <thead>
          <tr className="text-left text-slate-700">
            <th scope="col" className="py-1 pr-3 font-medium">What</th>
            <th scope="col" className="py-1 pr-3 font-medium">In the console</th>
            <th scope="col" className="py-1 font-medium">By email</th>
          </tr>
        </thead>
        <tbody>
          {draft.map((p) => (
            <tr key={p.kind} className="border-t border-slate-200" data-testid="preference-row" data-kind={p.kind}>
              <th scope="row" className="py-1.5 pr-3 text-left font-normal">{NOTIFY_KIND_LABELS[p.kind]}</th>
              <td className="py-1.5 pr-3">
                <input type="checkbox" aria-label={`${NOTIFY_KIND_LABELS[p.kind]}: in the console`} checked={p.console} onChange={(e) => set(p.kind, "console", e.target.checked)} />
              </td>
              <td className="py-1.5">
                <input type="checkbox" aria-label={`${NOTIFY_KIND_LABELS[p.kind]}: by email`} checked={p.email} onChange={(e) => set(p.kind, "email", e.target.checked)} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="flex items-center gap-3">
        <Button type="submit" size="sm" busy={save.isPending} data-testid="preferences-save">
          Save preferences
        </Button>
        {save.isSuccess ? <span className="text-sm text-emerald-800" role="status">Saved.</span> : null}
      </div>
      {save.error ? <ProblemAlert error={save.error} /> : null}
    </form>
  )
}
