"use client"

import { BooksTools } from "@/components/sandbox-tools/books-tools"
import { ConversionsApiSwitch } from "@/components/sandbox-tools/conversions-api-switch"
import { DepositForm } from "@/components/sandbox-tools/deposit-form"
import { FaultsEditor } from "@/components/sandbox-tools/faults-editor"
import { SettingsFormCard } from "@/components/sandbox-tools/settings-form"
import { Card } from "@/components/ui/card"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { formatCount, formatUsd } from "@/lib/format"
import { type SandboxSettings, useSandboxSettingsQuery } from "@/lib/queries/sandbox"
import type { ConversionsApi } from "@/lib/schemas/constants"

export interface SandboxFixedConfig {
  quoteTtlMs: number
  tokenTtlS: number
  maxExecutionUsd: string
  maxConversionUsd: string
  /** The conversion API the desk uses now, and the one UPSTREAM_CONVERSIONS_API names. */
  conversionsApi: ConversionsApi
  configuredConversionsApi: ConversionsApi
}

/** Deposits, runtime settings, the day's books (a generated past week, and the faults the statements catch) and fault injection of the embedded sandbox. */
export function SandboxTools({ fixed, initialSettings }: { fixed: SandboxFixedConfig; initialSettings: SandboxSettings | null }) {
  // Rendered with the server's answer: the forms are there at first paint, not after a fetch.
  const settings = useSandboxSettingsQuery(initialSettings ? { initialData: initialSettings } : undefined)
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold">Sandbox tools</h1>
        <p className="text-sm text-slate-700">
          Fund profiles, slow settlement down and inject faults into the embedded sandbox, for demos and drills. Changes apply to everyone
          using this console.
        </p>
      </div>
      <div className="grid gap-6 lg:grid-cols-2">
        <Card title="Deposit funds">
          <DepositForm />
        </Card>
        <Card title="Settings">
          {settings.data ? (
            <SettingsFormCard settings={settings.data} configuredQuoteTtlMs={fixed.quoteTtlMs} />
          ) : settings.error ? (
            <ProblemAlert error={settings.error} />
          ) : (
            <p className="text-sm text-slate-700">Loading settings…</p>
          )}
          <dl className="mt-4 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 border-t border-slate-200 pt-3 text-xs text-slate-700">
            <dt className="font-medium">Fixed at start-up</dt>
            <dd>
              token lifetime {formatCount(fixed.tokenTtlS)} s · max per execution {formatUsd(fixed.maxExecutionUsd)} USD · max per conversion{" "}
              {formatUsd(fixed.maxConversionUsd)} USD
            </dd>
          </dl>
        </Card>
      </div>
      <Card title="The day's books">
        <BooksTools />
      </Card>
      <Card title="Conversion API">
        <ConversionsApiSwitch current={fixed.conversionsApi} configured={fixed.configuredConversionsApi} />
      </Card>
      <Card title="Fault injection">
        {settings.data ? (
          <FaultsEditor settings={settings.data} />
        ) : settings.error ? (
          <ProblemAlert error={settings.error} />
        ) : (
          <p className="text-sm text-slate-700">Loading faults…</p>
        )}
      </Card>
    </div>
  )
}
