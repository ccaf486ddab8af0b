// The delivery worker alone in a process of its own, for delivery-proof.test.ts: it opens
// the test's Postgres database (DATABASE_URL), delivers as the console's worker does, and
// says "ready" on stdout once it holds the lease. The test kills it with SIGKILL mid-send.
// Run as: node --conditions=react-server --import tsx test/notify-worker-process.ts
import { openDatabase } from "@/lib/db/client"
import { createNotificationWorker } from "@/lib/console/notify/worker"

const url = process.env.NOTIFY_PROOF_DATABASE_URL
if (!url) throw new Error("NOTIFY_PROOF_DATABASE_URL is not set")
const database = await openDatabase({ url })
const worker = createNotificationWorker({
  db: database.db,
  id: process.env.NOTIFY_PROOF_WORKER_ID ?? `child-${process.pid}`,
  solo: false,
  pollMs: 100,
  publicUrl: () => process.env.NOTIFY_PROOF_PUBLIC_URL ?? "https://console.example.test",
  smtp: () => undefined,
  claimMs: Number(process.env.NOTIFY_PROOF_CLAIM_MS ?? 2_000),
  leaseMs: Number(process.env.NOTIFY_PROOF_LEASE_MS ?? 2_000),
  backoffMs: 100,
})
worker.start()
const ready = setInterval(() => {
  if (!worker.holds()) return
  clearInterval(ready)
  process.stdout.write("ready\n")
}, 20)
