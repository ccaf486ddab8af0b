import "server-only"
import { and, eq, isNull } from "drizzle-orm"
import { notify, staffAtLeast } from "@/lib/console/notify/outbox"
import { profileStatement } from "@/lib/console/statements/statement"
import type { StatementUpstream } from "@/lib/console/statements/sources"
import type { Db } from "@/lib/db/client"
import { type BalanceSnapshotRow, consoleBalanceSnapshots } from "@/lib/db/schema"
import { formatAmount } from "@/lib/format"
import { log } from "@/lib/log"
import type { UpstreamClient } from "@/lib/upstream"

/**
 * When a cutoff's balance snapshot is taken, the day it closes is tied out for every
 * profile in it: a statement that does not tie out (both ends observed, an asset whose
 * closing is not its opening plus its movements) notifies the admins with the difference,
 * its asset and the window. The check and its notifications are one transaction, which
 * marks the snapshot checked: a second tick or another instance writes none again, and a
 * check that failed (the service unreachable) is tried again on the next tick.
 */

const DAY_MS = 86_400_000

export type TieOutUpstream = StatementUpstream & Pick<UpstreamClient, "listBalances">

/** The statement page of one profile and day: the deep link. */
export function statementHref(profileId: string, day: string): string {
  return `/statements?profile_id=${encodeURIComponent(profileId)}&from=${day}`
}

function hhmm(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}`
}

/** Ties out the day `snapshot` (a cutoff's) closes; answers how many statements did not tie out (null: checked before). */
export async function tieOutCutoff(deps: { db: Db; upstream: TieOutUpstream }, snapshot: BalanceSnapshotRow, now: Date): Promise<number | null> {
  if (!snapshot.cutoff || snapshot.tieOutCheckedAt) return null
  const to = snapshot.cutoff
  const from = new Date(to.getTime() - DAY_MS)
  const day = from.toISOString().slice(0, 10)
  const differences: { subject: string; detail: string; href: string }[] = []
  for (const profileId of Object.keys(snapshot.balances).sort()) {
    const statement = await profileStatement(deps, { profileId, from, to }, now)
    if (statement.tie_out !== "difference") continue
    const assets = statement.assets.filter((a) => a.tie_out === "difference")
    const sizes = assets.map((a) => `${a.asset} by ${formatAmount(a.difference, a.asset)} ${a.asset}`).join(", ")
    const windows = statement.unexplained.map((u) => `${formatAmount(u.amount, u.asset)} ${u.asset} between ${hhmm(u.from)} and ${hhmm(u.to)} UTC`).join("; ")
    differences.push({
      subject: `${profileId}:${day}`,
      detail: `The statement of profile ${profileId} for ${day} (00:00 to 24:00 UTC) does not tie out: closing − (opening + credits − debits − fees) differs on ${sizes}.${windows ? ` A change no record explains: ${windows}.` : ""}`,
      href: statementHref(profileId, day),
    })
  }
  // Written at the wall clock's time (`now` is the statement's: the job's, a test's).
  const at = new Date()
  return deps.db.transaction(async (tx) => {
    const marked = await tx
      .update(consoleBalanceSnapshots)
      .set({ tieOutCheckedAt: at })
      .where(and(eq(consoleBalanceSnapshots.id, snapshot.id), isNull(consoleBalanceSnapshots.tieOutCheckedAt)))
      .returning({ id: consoleBalanceSnapshots.id })
    if (marked.length === 0) return null
    if (differences.length === 0) return 0
    const admins = await staffAtLeast(tx, "admin")
    for (const d of differences) {
      await notify(tx, { kind: "statement_difference", subject: d.subject, title: "A statement does not tie out", detail: d.detail, href: d.href, recipients: admins, at })
    }
    log.warn("statements.tie_out_difference", { day, profiles: differences.length })
    return differences.length
  })
}
