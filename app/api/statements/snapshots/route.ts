import { staffRef } from "@/lib/auth/staff-ref"
import { recordSnapshotTaken } from "@/lib/console/intents"
import { snapshotSummary, takeSnapshot } from "@/lib/console/statements/snapshots"
import { withStaff } from "@/lib/console/with-staff"
import { log } from "@/lib/log"

// POST /api/statements/snapshots - takes every profile's balances from the service now and stores them (an observed point for statements); audited
export const POST = withStaff("admin", async ({ staff, runtime }) => {
  const row = await takeSnapshot(runtime.db, runtime.upstream, { cutoff: null, takenBy: staff.email })
  if (!row) throw new Error("a snapshot without a cutoff was not stored")
  const summary = snapshotSummary(row)
  await recordSnapshotTaken(runtime.db, staff, { id: row.id, profiles: summary.profiles }, row.takenAt)
  log.info("snapshots.taken_now", { staff: staffRef(staff.email), snapshotId: row.id, profiles: summary.profiles })
  return Response.json(summary, { status: 201 })
})
