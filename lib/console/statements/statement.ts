import "server-only"
import { asc, gte } from "drizzle-orm"
import type { Db } from "@/lib/db/client"
import { type BalanceSnapshotRow, type SnapshotBalance, consoleBalanceSnapshots } from "@/lib/db/schema"
import { type Decimal, toDecimal } from "@/lib/money"
import { validationFailed } from "@/lib/problem"
import type { StatementQuery } from "@/lib/schemas/statements"
import type { UpstreamClient } from "@/lib/upstream"
import { buildStatement } from "@/lib/console/statements/model"
import { snapshotsBetween } from "@/lib/console/statements/snapshots"
import { type StatementUpstream, statementRecords } from "@/lib/console/statements/sources"
import { type Reconciliation, consoleCreatesBetween, reconcile } from "@/lib/console/statements/reconcile"
import type { Anchor, Statement } from "@/lib/console/statements/types"

/** A statement and the reconciliation of the console's creates with the service's records over its period. */
export type StatementReport = Statement & { reconciliation: Reconciliation }

/**
 * A cutoff's snapshot read this long after the cutoff still counts as observing it (the
 * records in between are worked back exactly); one read later (a start long after a
 * missed cutoff) makes that end reconstructed: a change no record explains could hide there.
 */
export const OBSERVED_WITHIN_MS = 15 * 60_000

function totals(balances: readonly SnapshotBalance[] | undefined): Map<string, Decimal> {
  return new Map((balances ?? []).map((b) => [b.asset, toDecimal(b.available).plus(toDecimal(b.trading))]))
}

function snapshotAnchor(row: BalanceSnapshotRow, profileId: string): Anchor {
  return { at: row.takenAt, source: "snapshot", cutoff: row.cutoff, balances: totals(row.balances[profileId]) }
}

/** Whether `row` is the snapshot of `cutoff`, read soon enough after it to observe it. */
function observes(row: BalanceSnapshotRow | undefined, cutoff: Date): boolean {
  if (!row?.cutoff || row.cutoff.getTime() !== cutoff.getTime()) return false
  const late = row.takenAt.getTime() - cutoff.getTime()
  return late >= 0 && late <= OBSERVED_WITHIN_MS
}

/**
 * One profile's statement over [from, to): the snapshots read in the period, the first
 * observation after it (the closing cutoff's snapshot, a later one, or the service's
 * balance now), and every record between.
 */
export async function profileStatement(
  deps: { db: Db; upstream: StatementUpstream & Pick<UpstreamClient, "listBalances"> },
  query: StatementQuery,
  now: Date = new Date(),
): Promise<StatementReport> {
  const { db, upstream } = deps
  const { profileId, from, to } = query
  if (from.getTime() > now.getTime()) throw validationFailed({ from: "must not be after today (UTC)" })
  // A snapshot read exactly at `to` (a generated week's) is the closing's observation, not the period's.
  const inPeriod = (await snapshotsBetween(db, from, to)).filter((row) => row.takenAt.getTime() < to.getTime())
  const anchors: Anchor[] = inPeriod.map((row) => snapshotAnchor(row, profileId))
  const openingObserved = inPeriod.some((row) => observes(row, from))
  let closingObserved: boolean
  if (to.getTime() > now.getTime()) {
    // The period has not ended: its closing is the service's balance now.
    closingObserved = true
    anchors.push({ at: now, source: "now", cutoff: null, balances: await balancesNow(upstream, profileId) })
  } else {
    const [after] = await db.select().from(consoleBalanceSnapshots).where(gte(consoleBalanceSnapshots.takenAt, to)).orderBy(asc(consoleBalanceSnapshots.takenAt)).limit(1)
    closingObserved = inPeriod.some((row) => observes(row, to)) || observes(after, to)
    if (after) anchors.push(snapshotAnchor(after, profileId))
    else anchors.push({ at: now, source: "now", cutoff: null, balances: await balancesNow(upstream, profileId) })
  }
  const end = new Date(Math.max(to.getTime(), ...anchors.map((a) => a.at.getTime())) + 1)
  const [records, creates] = await Promise.all([statementRecords(db, upstream, profileId, from, end), consoleCreatesBetween(db, profileId, from, to)])
  const statement = buildStatement({ profileId, from, to, records, anchors, openingObserved, closingObserved })
  return { ...statement, reconciliation: reconcile(creates, records, from, to) }
}

async function balancesNow(upstream: Pick<UpstreamClient, "listBalances">, profileId: string): Promise<Map<string, Decimal>> {
  return totals(await upstream.listBalances(profileId))
}
