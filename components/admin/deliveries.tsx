"use client"

import { useState } from "react"
import { Badge } from "@/components/ui/badge"
import { Button } from "@/components/ui/button"
import { Field, Input, Select } from "@/components/ui/field"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { Table, TableBody, TableHead, Td, Th, Tr } from "@/components/ui/table"
import { Timestamp } from "@/components/ui/timestamp"
import { formatAmount, formatCount } from "@/lib/format"
import { ApiProblemError } from "@/lib/queries/api"
import {
  useAddChannelMutation,
  useChannelsQuery,
  useDeliveriesQuery,
  useNotifySettingsQuery,
  useRemoveChannelMutation,
  useRetryDeliveriesMutation,
  useSaveNotifySettingsMutation,
} from "@/lib/queries/inbox"
import { FIAT_ASSETS } from "@/lib/schemas/assets"
import { NOTIFY_KINDS, NOTIFY_KIND_LABELS, type NotifySettingsBody, type NotifySettingsView } from "@/lib/schemas/notify"

const STATE_TONES = { pending: "warning", sent: "success", parked: "danger" } as const

/** Team channels: the list (URLs as scheme and host only), add one, remove one. */
export function TeamChannels() {
  const channels = useChannelsQuery()
  const add = useAddChannelMutation()
  const remove = useRemoveChannelMutation()
  const [type, setType] = useState<"chat" | "webhook">("chat")
  const [name, setName] = useState("")
  const [url, setUrl] = useState("")
  const [secret, setSecret] = useState("")
  const [kinds, setKinds] = useState<string[]>(["approval_waiting"])
  const fields = add.error instanceof ApiProblemError ? ((add.error.problem.meta?.fields as Record<string, string> | undefined) ?? {}) : {}
  return (
    <div className="space-y-4">
      <Table caption="Team channels" framed density="compact" testId="channels">
        <TableHead>
          <Th>Name</Th>
          <Th>Type</Th>
          <Th>Where</Th>
          <Th>Carries</Th>
          <Th>
            <span className="sr-only">Remove</span>
          </Th>
        </TableHead>
        <TableBody>
          {(channels.data?.items ?? []).map((c) => (
            <Tr key={c.id} data-testid="channel-row">
              <Td>{c.name}</Td>
              <Td>{c.type === "chat" ? "chat" : "signed webhook"}</Td>
              <Td className="font-mono text-xs">{c.url_hint}</Td>
              <Td>{c.kinds.map((k) => NOTIFY_KIND_LABELS[k]).join("; ")}</Td>
              <Td>
                <Button variant="secondary" size="sm" held={remove.isPending} onClick={() => remove.mutate(c.id)}>
                  Remove<span className="sr-only"> {c.name}</span>
                </Button>
              </Td>
            </Tr>
          ))}
        </TableBody>
      </Table>
      {channels.data?.items.length === 0 ? <p className="text-sm text-slate-600">No team channels: notifications reach people's inboxes and email only.</p> : null}
      <form
        className="grid gap-3 sm:grid-cols-2"
        onSubmit={(e) => {
          e.preventDefault()
          add.mutate(
            { name, type, url, kinds, ...(type === "webhook" ? { secret } : {}) },
            {
              onSuccess: () => {
                setName("")
                setUrl("")
                setSecret("")
              },
            },
          )
        }}
      >
        <Field label="Name" error={fields.name}>
          {(p) => <Input {...p} value={name} onChange={(e) => setName(e.target.value)} maxLength={80} />}
        </Field>
        <Field label="Type" error={fields.type}>
          {(p) => (
            <Select {...p} value={type} onChange={(e) => setType(e.target.value as "chat" | "webhook")}>
              <option value="chat">Chat (Slack-compatible incoming webhook)</option>
              <option value="webhook">Signed webhook (Standard Webhooks)</option>
            </Select>
          )}
        </Field>
        <Field label="URL" error={fields.url} hint="A secret: it is never shown again in full.">
          {(p) => <Input {...p} type="url" autoComplete="off" value={url} onChange={(e) => setUrl(e.target.value)} />}
        </Field>
        {type === "webhook" ? (
          <Field label="Signing secret" error={fields.secret} hint="whsec_ and base64, as your receiver has it; never shown again.">
            {(p) => <Input {...p} type="password" autoComplete="off" value={secret} onChange={(e) => setSecret(e.target.value)} />}
          </Field>
        ) : null}
        <fieldset className="sm:col-span-2">
          <legend className="text-sm font-medium text-slate-800">Kinds it carries</legend>
          <div className="mt-1 flex flex-wrap gap-x-4 gap-y-1">
            {NOTIFY_KINDS.map((k) => (
              <label key={k} className="flex items-center gap-1.5 text-sm">
                <input type="checkbox" checked={kinds.includes(k)} onChange={(e) => setKinds(e.target.checked ? [...kinds, k] : kinds.filter((x) => x !== k))} />
                {NOTIFY_KIND_LABELS[k]}
              </label>
            ))}
          </div>
          {fields.kinds ? <p className="text-sm font-medium text-red-700" role="alert">{fields.kinds}</p> : null}
        </fieldset>
        <div className="sm:col-span-2">
          <Button type="submit" size="sm" busy={add.isPending}>
            Add channel
          </Button>
        </div>
      </form>
      {add.error && Object.keys(fields).length === 0 ? <ProblemAlert error={add.error} /> : null}
    </div>
  )
}

/** The latest deliveries, parked ones first with their error, and retry. */
export function DeliveriesList() {
  const [state, setState] = useState<"pending" | "sent" | "parked" | undefined>(undefined)
  const deliveries = useDeliveriesQuery(state)
  const retry = useRetryDeliveriesMutation()
  const items = deliveries.data?.items ?? []
  const parked = items.filter((d) => d.state === "parked").map((d) => d.id)
  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-end gap-3">
        <Field label="State">
          {(p) => (
            <Select {...p} value={state ?? ""} onChange={(e) => setState((e.target.value || undefined) as typeof state)}>
              <option value="">All</option>
              <option value="parked">Parked</option>
              <option value="pending">Pending</option>
              <option value="sent">Sent</option>
            </Select>
          )}
        </Field>
        <Button variant="secondary" size="sm" disabled={parked.length === 0} busy={retry.isPending} onClick={() => retry.mutate(parked.slice(0, 100))} data-testid="retry-parked">
          Retry {formatCount(parked.length)} parked
        </Button>
      </div>
      {retry.error ? <ProblemAlert error={retry.error} /> : null}
      <Table caption="Deliveries" framed density="compact" testId="deliveries" after={deliveries.data && items.length === 0 ? <p className="p-3 text-sm text-slate-600">No deliveries.</p> : null}>
        <TableHead>
          <Th>When</Th>
          <Th>Notification</Th>
          <Th>Channel</Th>
          <Th>To</Th>
          <Th>State</Th>
          <Th align="right">Attempts</Th>
          <Th>Error</Th>
          <Th>
            <span className="sr-only">Retry</span>
          </Th>
        </TableHead>
        <TableBody>
          {items.map((d) => (
            <Tr key={d.id} data-testid="delivery-row" data-state={d.state}>
              <Td>
                <Timestamp value={d.created_at} />
              </Td>
              <Td>{d.title}</Td>
              <Td>{d.channel}</Td>
              <Td className="break-all">{d.target}</Td>
              <Td>
                <Badge tone={STATE_TONES[d.state]}>{d.state}</Badge>
              </Td>
              <Td align="right" className="tabular">{formatCount(d.attempts)}</Td>
              <Td className="text-xs">{d.last_error ?? "—"}</Td>
              <Td>
                {d.state === "parked" ? (
                  <Button variant="secondary" size="sm" held={retry.isPending} onClick={() => retry.mutate([d.id])}>
                    Retry<span className="sr-only"> delivery to {d.target}</span>
                  </Button>
                ) : null}
              </Td>
            </Tr>
          ))}
        </TableBody>
      </Table>
    </div>
  )
}

/** The large-order sizes per currency: an order at or over one notifies the admins. Blank: none in that currency. */
export function LargeOrderSettings() {
  const settings = useNotifySettingsQuery()
  if (!settings.data) return settings.error ? <ProblemAlert error={settings.error} /> : <p className="text-sm text-slate-600">Loading…</p>
  // Keyed by the last save: a save (here or elsewhere) starts the form from what is stored.
  return <LargeOrderForm key={settings.data.updated_at ?? "never"} settings={settings.data} />
}

function LargeOrderForm({ settings }: { settings: NotifySettingsView }) {
  const save = useSaveNotifySettingsMutation()
  const [values, setValues] = useState<Record<string, string>>({ ...settings.large_order })
  const fields = save.error instanceof ApiProblemError ? ((save.error.problem.meta?.fields as Record<string, string> | undefined) ?? {}) : {}
  return (
    <form
      className="space-y-3"
      data-testid="large-order-form"
      onSubmit={(e) => {
        e.preventDefault()
        const large_order = Object.fromEntries(Object.entries(values).filter(([, v]) => v.trim() !== "")) as NotifySettingsBody["large_order"]
        save.mutate({ large_order })
      }}
    >
      <div className="grid gap-3 sm:grid-cols-3">
        {FIAT_ASSETS.map((currency) => (
          <Field key={currency} label={`Large order in ${currency}`} error={fields[`large_order.${currency}`]} hint="At or over this, the admins are told. Blank: none.">
            {(p) => <Input {...p} inputMode="decimal" autoComplete="off" value={values[currency] ?? ""} onChange={(e) => setValues({ ...values, [currency]: e.target.value })} />}
          </Field>
        ))}
      </div>
      <div className="flex flex-wrap items-center gap-3">
        <Button type="submit" size="sm" busy={save.isPending}>
          Save sizes
        </Button>
        {settings.updated_by ? (
          <p className="text-xs text-slate-600" data-testid="large-order-saved">
            {Object.entries(settings.large_order).length === 0
              ? "None set"
              : Object.entries(settings.large_order)
                  .map(([c, v]) => `${formatAmount(v, c)} ${c}`)
                  .join(", ")}{" "}
            · last changed by {settings.updated_by} <Timestamp value={settings.updated_at ?? ""} />
          </p>
        ) : null}
      </div>
      {save.error && Object.keys(fields).length === 0 ? <ProblemAlert error={save.error} /> : null}
    </form>
  )
}
