import type { Metadata } from "next"
import { notFound } from "next/navigation"
import { SandboxTools } from "@/components/sandbox-tools/sandbox-tools"
import { NotAllowed } from "@/components/layout/role-gates"
import { roleAtLeast } from "@/lib/auth/roles"
import { currentStaff } from "@/lib/auth/session"
import { currentConversionsApi } from "@/lib/console/conversions-api"
import { consoleRuntime } from "@/lib/console/runtime"
import { pageSandboxSettings } from "@/lib/console/sandbox-tools"
import { env } from "@/lib/env"

export const metadata: Metadata = { title: "Sandbox" }

// /sandbox - the sandbox tools page. The embedded sandbox's own HTTP mount is /sandbox/** (app/sandbox/[...path]).
export default async function SandboxPage() {
  const config = env()
  if (config.mode !== "sandbox") notFound()
  const staff = await currentStaff()
  if (!staff) return null
  if (!roleAtLeast(staff.role, "admin")) return <NotAllowed heading="Sandbox tools" needs="The sandbox tools need the admin role" role={staff.role} />
  const [conversionsApi, initialSettings] = await Promise.all([currentConversionsApi((await consoleRuntime()).db), pageSandboxSettings()])
  return (
    <SandboxTools
      initialSettings={initialSettings}
      fixed={{
        quoteTtlMs: config.sandbox.quoteTtlMs,
        tokenTtlS: config.sandbox.tokenTtlS,
        maxExecutionUsd: String(config.sandbox.maxExecutionUsd),
        maxConversionUsd: String(config.sandbox.maxConversionUsd),
        conversionsApi,
        configuredConversionsApi: config.conversionsApi,
      }}
    />
  )
}
