import "@/lib/zod-config"

// Start-up work runs once per server process, in the Node.js runtime only, and never at
// module import: `next build` imports route modules and must not open a database.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return
  const { installShutdown } = await import("@/lib/console/shutdown")
  installShutdown()
  const { startBackgroundWork } = await import("@/lib/console/runtime")
  await startBackgroundWork()
}
