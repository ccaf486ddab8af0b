"use client"

import { useState } from "react"
import { Button } from "@/components/ui/button"
import { Card } from "@/components/ui/card"
import { Field, Input } from "@/components/ui/field"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { Timestamp } from "@/components/ui/timestamp"
import { type Passkey, usePasskeysQuery, useRegisterPasskeyMutation, useRemovePasskeyMutation, useRenamePasskeyMutation } from "@/lib/queries/passkeys"

function PasskeyRow({ passkey }: { passkey: Passkey }) {
  const rename = useRenamePasskeyMutation()
  const remove = useRemovePasskeyMutation()
  const [name, setName] = useState(passkey.name)
  const trimmed = name.trim()
  return (
    <li className="space-y-2 rounded-md border border-slate-200 p-3" data-testid="passkey-row" data-name={passkey.name}>
      <div className="flex flex-wrap items-end gap-2">
        <Field label="Name" className="min-w-48 flex-1">
          {(props) => <Input {...props} value={name} onChange={(e) => setName(e.target.value)} maxLength={60} data-testid="passkey-name" />}
        </Field>
        <Button size="sm" variant="secondary" disabled={trimmed === "" || trimmed === passkey.name} busy={rename.isPending} onClick={() => rename.mutate({ id: passkey.id, name: trimmed })} data-testid="passkey-rename">
          Rename
        </Button>
        <Button size="sm" variant="danger" busy={remove.isPending} onClick={() => remove.mutate(passkey.id)} data-testid="passkey-remove">
          Remove
        </Button>
      </div>
      <p className="text-xs text-slate-600">
        Added <Timestamp value={passkey.created_at} /> · last used {passkey.last_used_at ? <Timestamp value={passkey.last_used_at} /> : "never"}
      </p>
      {rename.error ? <ProblemAlert error={rename.error} /> : null}
      {remove.error ? <ProblemAlert error={remove.error} /> : null}
    </li>
  )
}

/** Your passkeys: add one (this device or a security key), name, rename and remove them. Approving and rejecting asks for one when step-up is on. */
export function Passkeys({ stepUp }: { stepUp: "webauthn" | "off" }) {
  const query = usePasskeysQuery()
  const register = useRegisterPasskeyMutation()
  const [name, setName] = useState("")
  const items = query.data?.items ?? []
  return (
    <Card title="Passkeys">
      <div className="space-y-4">
        <p className="text-sm text-slate-700">
          {stepUp === "webauthn"
            ? "Approving or rejecting a request asks for one of your passkeys, signed for exactly that decision."
            : "Step-up is off on this console (STEP_UP=off): decisions do not ask for a passkey, but you may register one now."}
        </p>
        {query.error ? <ProblemAlert error={query.error} /> : null}
        {query.data && items.length === 0 ? <p className="text-sm text-slate-600" data-testid="no-passkeys">You have no passkey yet.</p> : null}
        <ul className="space-y-2">
          {items.map((passkey) => (
            <PasskeyRow key={passkey.id} passkey={passkey} />
          ))}
        </ul>
        <form
          className="flex flex-wrap items-end gap-2"
          onSubmit={(e) => {
            e.preventDefault()
            if (name.trim() === "") return
            register.mutate(name.trim(), { onSuccess: () => setName("") })
          }}
        >
          <Field label="New passkey's name" hint="e.g. Work laptop, YubiKey" className="min-w-48 flex-1">
            {(props) => <Input {...props} value={name} onChange={(e) => setName(e.target.value)} maxLength={60} data-testid="new-passkey-name" />}
          </Field>
          <Button type="submit" size="sm" busy={register.isPending} disabled={name.trim() === ""} data-testid="add-passkey">
            Add a passkey
          </Button>
        </form>
        {register.error ? <ProblemAlert error={register.error} /> : null}
      </div>
    </Card>
  )
}
