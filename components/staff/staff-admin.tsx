"use client"

import { useRouter } from "next/navigation"
import { useState } from "react"
import { CopyButton } from "@/components/ui/copy-button"
import { Button } from "@/components/ui/button"
import { Card } from "@/components/ui/card"
import { Field, Input, Select } from "@/components/ui/field"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { Table, TableBody, TableHead, Td, Th, Tr } from "@/components/ui/table"
import { ROLES, type Role } from "@/lib/auth/roles"
import { formatAmount, formatCount } from "@/lib/format"
import { ApiNetworkError, ApiProblemError, apiFetch } from "@/lib/queries/api"
import type { Problem } from "@/lib/schemas/problem"

/** One person as GET /api/admin/staff lists them (lib/console/staff.ts). */
export interface StaffEntryView {
  email: string
  role: Role
  status: "invited" | "active" | "disabled"
  source: string
  methods: string[]
  passkeys: number
  last_sign_in_at: string | null
  active_sessions: number
  invited_by: string | null
  updated_by: string | null
  updated_at: string
  invitation: { id: string; expires_at: string; expired: boolean } | null
  limits: { per_order: Record<string, string>; per_day: Record<string, string> } | null
  limits_from: "person" | "role" | null
}

const METHOD_LABELS: Record<string, string> = { password: "password", passkey: "passkey", sso: "single sign-on" }

function when(iso: string | null): string {
  return iso ? `${iso.replace("T", " ").slice(0, 16)} UTC` : "never"
}

function limitsText(entry: StaffEntryView): string {
  if (!entry.limits) return "none"
  const part = (label: string, values: Record<string, string>) =>
    Object.entries(values).map(([currency, amount]) => `${formatAmount(amount, currency)} ${currency} ${label}`)
  const parts = [...part("per order", entry.limits.per_order), ...part("per day", entry.limits.per_day)]
  return `${parts.join(", ") || "none"} (${entry.limits_from === "person" ? "their own" : "their role's"})`
}

/** Runs one change against the API, then reloads the page's data; its problem is shown beside the control. */
function useChange() {
  const router = useRouter()
  const [busy, setBusy] = useState<string | null>(null)
  const [error, setError] = useState<unknown>(null)
  async function run(key: string, path: string, method: "PATCH" | "DELETE" | "PUT", body?: unknown) {
    setBusy(key)
    setError(null)
    try {
      // A removal or withdrawal answers 204 with no body: read a problem only when there is one.
      const res = await fetch(path, {
        method,
        credentials: "same-origin",
        cache: "no-store",
        headers: body === undefined ? { accept: "application/json" } : { "content-type": "application/json", accept: "application/json" },
        body: body === undefined ? null : JSON.stringify(body),
      }).catch((cause: unknown) => {
        throw new ApiNetworkError(cause)
      })
      if (!res.ok) {
        const problem = (await res.json().catch(() => null)) as Problem | null
        throw new ApiProblemError(problem ?? { type: "about:blank", title: res.statusText || "Error", status: res.status })
      }
      router.refresh()
      return true
    } catch (caught) {
      setError(caught)
      return false
    } finally {
      setBusy(null)
    }
  }
  return { busy, error, run }
}

function StaffRow({ entry, self }: { entry: StaffEntryView; self: string }) {
  const [role, setRole] = useState<Role>(entry.role)
  const [confirmRemove, setConfirmRemove] = useState(false)
  const change = useChange()
  const path = `/api/admin/staff/${encodeURIComponent(entry.email)}`
  const you = entry.email === self
  return (
    <Tr data-testid="member-row" data-email={entry.email} data-status={entry.status} data-role={entry.role}>
      <Td className="font-medium">
        {entry.email}
        {you ? <span className="ml-1 text-xs text-slate-600">(you)</span> : null}
      </Td>
      <Td>
        <div className="flex items-center gap-1">
          <Select aria-label={`Role of ${entry.email}`} value={role} onChange={(e) => setRole(e.target.value as Role)} className="w-28" data-testid="member-role">
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </Select>
          {role !== entry.role ? (
            <Button size="sm" busy={change.busy === "role"} onClick={() => void change.run("role", path, "PATCH", { role })} data-testid="member-save-role">
              Save
            </Button>
          ) : null}
        </div>
      </Td>
      <Td data-testid="member-status">
        {entry.status}
        {entry.invitation ? <div className="text-xs text-slate-600">{entry.invitation.expired ? "link expired" : `link until ${when(entry.invitation.expires_at)}`}</div> : null}
      </Td>
      <Td>{entry.methods.map((m) => METHOD_LABELS[m] ?? m).join(", ") || "none yet"}</Td>
      <Td align="right" data-testid="member-passkeys">
        {formatCount(entry.passkeys)}
      </Td>
      <Td className="whitespace-nowrap">{when(entry.last_sign_in_at)}</Td>
      <Td align="right" data-testid="member-sessions">
        {formatCount(entry.active_sessions)}
      </Td>
      <Td className="min-w-40 text-xs">{limitsText(entry)}</Td>
      <Td className="text-xs">{entry.invited_by ?? (entry.source === "sso" ? "single sign-on" : entry.source === "bootstrap" ? "CONSOLE_USERS" : entry.source === "demo" ? "sandbox demo" : "—")}</Td>
      <Td>
        <div className="flex flex-wrap gap-1">
          {entry.status === "invited" && entry.invitation ? (
            <Button size="sm" variant="secondary" busy={change.busy === "withdraw"} onClick={() => void change.run("withdraw", `/api/admin/staff/invitations/${entry.invitation?.id ?? ""}`, "DELETE")} data-testid="member-withdraw">
              Withdraw invitation
            </Button>
          ) : entry.status === "active" ? (
            <Button size="sm" variant="secondary" busy={change.busy === "disable"} aria-label={`Disable ${entry.email}`} onClick={() => void change.run("disable", path, "PATCH", { status: "disabled" })} data-testid="member-disable">
              Disable
            </Button>
          ) : entry.status === "disabled" ? (
            <Button size="sm" variant="secondary" busy={change.busy === "enable"} aria-label={`Enable ${entry.email}`} onClick={() => void change.run("enable", path, "PATCH", { status: "active" })} data-testid="member-enable">
              Enable
            </Button>
          ) : null}
          {confirmRemove ? (
            <>
              <Button size="sm" variant="danger" busy={change.busy === "remove"} autoFocus onClick={() => void change.run("remove", path, "DELETE").then(() => setConfirmRemove(false))} data-testid="member-confirm-remove">
                Remove {entry.email}
              </Button>
              <Button size="sm" variant="secondary" onClick={() => setConfirmRemove(false)}>
                Keep
              </Button>
            </>
          ) : (
            <Button size="sm" variant="danger" aria-label={`Remove ${entry.email}`} onClick={() => setConfirmRemove(true)} data-testid="member-remove">
              Remove
            </Button>
          )}
        </div>
        {change.error ? <ProblemAlert error={change.error} className="mt-1" /> : null}
      </Td>
    </Tr>
  )
}

function InviteForm() {
  const router = useRouter()
  const [email, setEmail] = useState("")
  const [role, setRole] = useState<Role>("trader")
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>(null)
  const [fields, setFields] = useState<Record<string, string>>({})
  const [link, setLink] = useState<{ email: string; link: string; expires_at: string; emailed: boolean; emailError: string | null } | null>(null)
  return (
    <Card title="Invite someone">
      <form
        className="flex flex-wrap items-end gap-2"
        noValidate
        aria-label="Invite"
        onSubmit={async (event) => {
          event.preventDefault()
          setBusy(true)
          setError(null)
          setFields({})
          try {
            const result = await apiFetch<{ link: string; invitation: { email: string; expires_at: string }; emailed?: boolean; email_error?: string }>("/api/admin/staff", { method: "POST", body: { email: email.trim(), role } })
            setLink({ email: result.invitation.email, link: result.link, expires_at: result.invitation.expires_at, emailed: result.emailed === true, emailError: result.email_error ?? null })
            setEmail("")
            router.refresh()
          } catch (caught) {
            if (caught instanceof ApiProblemError && Object.keys(caught.fields).length > 0) setFields(caught.fields)
            else setError(caught)
          } finally {
            setBusy(false)
          }
        }}
      >
        <Field label="Email" error={fields.email} className="min-w-56 flex-1">
          {(a11y) => <Input {...a11y} type="email" autoComplete="off" value={email} onChange={(e) => setEmail(e.target.value)} data-testid="invite-email" />}
        </Field>
        <Field label="Role" error={fields.role}>
          {(a11y) => (
            <Select {...a11y} value={role} onChange={(e) => setRole(e.target.value as Role)} data-testid="invite-role">
              {ROLES.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </Select>
          )}
        </Field>
        <Button type="submit" busy={busy} data-testid="invite-submit">
          Invite
        </Button>
      </form>
      {error ? <ProblemAlert error={error} className="mt-2" /> : null}
      {link ? (
        <div className="mt-3 space-y-1 rounded-md border border-emerald-300 bg-emerald-50 p-3 text-sm text-emerald-950" role="status">
          <p>
            Invitation for <strong>{link.email}</strong>:{" "}
            {link.emailed
              ? "emailed to them; you can also pass this link on yourself."
              : link.emailError
                ? `the email could not be sent (${link.emailError}): send them this link yourself.`
                : "send them this link yourself."}{" "}
            It works once, until {when(link.expires_at)}, and is not shown again.
          </p>
          <div className="flex flex-wrap items-center gap-2">
            <code className="break-all font-mono text-xs" data-testid="invite-link">
              {link.link}
            </code>
            <CopyButton value={link.link} label="Copy invitation link" />
          </div>
        </div>
      ) : null}
    </Card>
  )
}

function SignInRules({ passkeyRoles }: { passkeyRoles: Role[] }) {
  const [chosen, setChosen] = useState<Role[]>(passkeyRoles)
  const change = useChange()
  const changed = chosen.join(",") !== passkeyRoles.join(",")
  return (
    <Card title="Sign-in rules">
      <form
        className="space-y-2"
        onSubmit={(event) => {
          event.preventDefault()
          void change.run("rules", "/api/admin/staff/sign-in-rules", "PUT", { passkey_roles: chosen })
        }}
      >
        <fieldset>
          <legend className="text-sm text-slate-700">Roles that must sign in with a passkey (their passwords are refused; single sign-on is the provider's to secure):</legend>
          <div className="mt-1 flex flex-wrap gap-4">
            {ROLES.map((r) => (
              <label key={r} className="flex items-center gap-1 text-sm">
                <input type="checkbox" checked={chosen.includes(r)} onChange={(e) => setChosen(e.target.checked ? ROLES.filter((x) => x === r || chosen.includes(x)) : chosen.filter((x) => x !== r))} data-testid={`passkey-role-${r}`} />
                {r}
              </label>
            ))}
          </div>
        </fieldset>
        <Button type="submit" size="sm" disabled={!changed} busy={change.busy === "rules"} data-testid="save-sign-in-rules">
          Save sign-in rules
        </Button>
        {change.error ? <ProblemAlert error={change.error} /> : null}
      </form>
    </Card>
  )
}

/** The staff page's body: invite, the sign-in rules, and everyone with their controls. */
export function StaffAdmin({ items, passkeyRoles, self }: { items: StaffEntryView[]; passkeyRoles: Role[]; self: string }) {
  return (
    <div className="space-y-4">
      <div className="grid gap-4 lg:grid-cols-2">
        <InviteForm />
        <SignInRules passkeyRoles={passkeyRoles} />
      </div>
      <Table caption="Staff" framed>
        <TableHead>
          <Th>Who</Th>
          <Th>Role</Th>
          <Th>Status</Th>
          <Th>Signs in with</Th>
          <Th align="right">Passkeys</Th>
          <Th>Last sign-in</Th>
          <Th align="right">Sessions</Th>
          <Th>Limits</Th>
          <Th>Invited by</Th>
          <Th>
            <span className="sr-only">Actions</span>
          </Th>
        </TableHead>
        <TableBody>
          {items.map((entry) => (
            <StaffRow key={`${entry.email}:${entry.updated_at}`} entry={entry} self={self} />
          ))}
        </TableBody>
      </Table>
    </div>
  )
}
