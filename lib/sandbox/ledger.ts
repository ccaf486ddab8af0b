import "server-only"
import { and, asc, eq, inArray, sql } from "drizzle-orm"
import type { Db } from "@/lib/db/client"
import { sandboxBalances } from "@/lib/db/schema"
import type { Decimal } from "@/lib/money"
import { assetAmount } from "@/lib/sandbox/format"
import { namedProblem } from "@/lib/sandbox/problems"
import { SANDBOX_ASSETS } from "@/lib/schemas/sandbox-tools"

/** A database handle or an open transaction: ledger moves run inside the caller's transaction. */
export type Tx = Pick<Db, "select" | "insert" | "update" | "delete" | "execute">

/**
 * Balance moves. Every debit is one conditional UPDATE (`available >= amount`), so two
 * concurrent debits can never both pass on the same funds; check constraints on the
 * table back this up. A debit moves funds from `available` to `trading` (committed to a
 * pending execution or conversion); settlement releases them, cancellation refunds them.
 */

/** Debits `available` and commits the amount to `trading`, or throws 403 Insufficient Funds. */
export async function commitFunds(tx: Tx, profileId: string, asset: string, amount: Decimal, now: Date): Promise<void> {
  const value = amount.toFixed()
  const moved = await tx
    .update(sandboxBalances)
    .set({
      available: sql`${sandboxBalances.available} - ${value}::numeric`,
      trading: sql`${sandboxBalances.trading} + ${value}::numeric`,
      updatedAt: now,
    })
    .where(
      and(
        eq(sandboxBalances.profileId, profileId),
        eq(sandboxBalances.asset, asset),
        sql`${sandboxBalances.available} >= ${value}::numeric`,
      ),
    )
    .returning({ asset: sandboxBalances.asset })
  if (moved.length > 0) return
  const [row] = await tx
    .select({ available: sandboxBalances.available })
    .from(sandboxBalances)
    .where(and(eq(sandboxBalances.profileId, profileId), eq(sandboxBalances.asset, asset)))
  const available = assetAmount(asset, row?.available ?? "0")
  const needed = assetAmount(asset, amount)
  throw namedProblem(
    "insufficient-funds",
    403,
    `insufficient ${asset} funds in profile ${profileId}: ${needed} needed, ${available} available`,
    { profile_id: profileId, asset, available, needed },
  )
}

/** Settlement of the paying side: the committed amount leaves `trading`. */
export async function releaseFunds(tx: Tx, profileId: string, asset: string, amount: Decimal, now: Date): Promise<void> {
  const value = amount.toFixed()
  await tx
    .update(sandboxBalances)
    .set({ trading: sql`${sandboxBalances.trading} - ${value}::numeric`, updatedAt: now })
    .where(and(eq(sandboxBalances.profileId, profileId), eq(sandboxBalances.asset, asset)))
}

/** Cancellation: the committed amount goes back from `trading` to `available`. */
export async function refundFunds(tx: Tx, profileId: string, asset: string, amount: Decimal, now: Date): Promise<void> {
  const value = amount.toFixed()
  await tx
    .update(sandboxBalances)
    .set({
      available: sql`${sandboxBalances.available} + ${value}::numeric`,
      trading: sql`${sandboxBalances.trading} - ${value}::numeric`,
      updatedAt: now,
    })
    .where(and(eq(sandboxBalances.profileId, profileId), eq(sandboxBalances.asset, asset)))
}

/** Adds to `available` (settlement's acquired side, deposits), creating the row if needed. */
export async function creditFunds(tx: Tx, profileId: string, asset: string, amount: Decimal, now: Date): Promise<void> {
  const value = amount.toFixed()
  await tx
    .insert(sandboxBalances)
    .values({ profileId, asset, available: value, trading: "0", updatedAt: now })
    .onConflictDoUpdate({
      target: [sandboxBalances.profileId, sandboxBalances.asset],
      set: { available: sql`${sandboxBalances.available} + ${value}::numeric`, updatedAt: now },
    })
}

interface WireBalance {
  asset: string
  available: string
  trading: string
}

/**
 * A profile's balances in the sandbox's asset order; every known asset appears (zero when
 * never held). `assets` narrows the list; an asset the sandbox does not know reads as zero.
 */
export async function listBalances(db: Db, profileId: string, assets?: readonly string[]): Promise<WireBalance[]> {
  const wanted = assets && assets.length > 0 ? [...new Set(assets)] : [...SANDBOX_ASSETS]
  const rows = await db
    .select()
    .from(sandboxBalances)
    .where(and(eq(sandboxBalances.profileId, profileId), inArray(sandboxBalances.asset, wanted)))
    .orderBy(asc(sandboxBalances.asset))
  const byAsset = new Map(rows.map((r) => [r.asset, r]))
  return wanted.map((asset) => {
    const row = byAsset.get(asset)
    return {
      asset,
      available: assetAmount(asset, row?.available ?? "0"),
      trading: assetAmount(asset, row?.trading ?? "0"),
    }
  })
}

/**
 * The fault "move a balance without a record": `available` changes by a signed amount, with
 * no transfer and no event (a debit still cannot take `available` below zero). Answers the
 * balance after it.
 */
export async function moveSilently(db: Db, profileId: string, asset: string, amount: Decimal, now: Date): Promise<WireBalance> {
  await db.transaction(async (tx) => {
    if (amount.isNegative()) {
      await commitFunds(tx, profileId, asset, amount.abs(), now)
      await releaseFunds(tx, profileId, asset, amount.abs(), now)
    } else {
      await creditFunds(tx, profileId, asset, amount, now)
    }
  })
  const [balance] = await listBalances(db, profileId, [asset])
  if (!balance) throw new Error("the balance just moved is not there")
  return balance
}
