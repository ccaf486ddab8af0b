import "@/lib/zod-config"

// Start-up work runs once per server process, in the Node.js runtime only, and never at
// module import: `next build` imports route modules and must not open a database.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return
  const { env } = await import("@/lib/env")
  const tracing = env().tracing
  // OpenTelemetry's SDK is loaded only when traces go somewhere.
  if (tracing) (await import("@/lib/tracing-sdk")).startTracing(tracing)
  const { installShutdown } = await import("@/lib/console/shutdown")
  installShutdown()
  const { startBackgroundWork } = await import("@/lib/console/runtime")
  await startBackgroundWork()
}
