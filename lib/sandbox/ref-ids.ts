import "server-only"
import { and, eq } from "drizzle-orm"
import type { PgColumn, PgTable } from "drizzle-orm/pg-core"
import type { Db } from "@/lib/db/client"
import type { HttpProblem } from "@/lib/problem"
import { namedProblem } from "@/lib/sandbox/problems"
import type { Tx } from "@/lib/sandbox/ledger"

/** Thrown inside a create's transaction when its ref_id is taken: rolls the debit back. */
class RefIdTaken extends Error {}

/**
 * The ref_ids of one kind of record, unique per owner (a profile's executions, a client's
 * conversions), written once for every create that takes one. A retry of a record that
 * exists gets 409 Already Exists with the record, whatever else changed since (an expired
 * quote included): the ref_id is what the client reconciles with.
 */
export class RefIds<Row extends { refId: string | null }> {
  constructor(
    private readonly db: Db,
    private readonly table: PgTable & { refId: PgColumn },
    /** The column a ref_id is unique within (the profile, the client). */
    private readonly owner: PgColumn,
    /** The record's name in the 409 ("conversion") and its wire form, sent as the 409's `meta.existing`. */
    private readonly record: { name: string; wire: (row: Row) => unknown },
  ) {}

  async find(ownerId: string, refId: string): Promise<Row | null> {
    const rows = await this.db
      .select()
      .from(this.table)
      .where(and(eq(this.owner, ownerId), eq(this.table.refId, refId)))
      .limit(1)
    return (rows[0] as Row | undefined) ?? null
  }

  private alreadyExists(existing: Row): HttpProblem {
    return namedProblem("already-exists", 409, `${this.record.name} already exists with ref_id '${existing.refId}'`, { existing: this.record.wire(existing) })
  }

  /** 409 Already Exists, naming the record, when the ref_id is taken. */
  async refuseTaken(ownerId: string, refId: string | undefined): Promise<void> {
    if (refId === undefined) return
    const existing = await this.find(ownerId, refId)
    if (existing) throw this.alreadyExists(existing)
  }

  /**
   * Inserts the row and runs `debit` in one transaction. The unique index on the ref_id,
   * not `refuseTaken`, keeps concurrent creates to one record: a concurrent insert with
   * the same ref_id waits for the first to commit, then inserts nothing, and its
   * transaction ends before any debit; it answers 409 with the record that won.
   */
  async insert(ownerId: string, refId: string | undefined, row: Row, debit: (tx: Tx) => Promise<void>): Promise<void> {
    try {
      await this.db.transaction(async (tx) => {
        const inserted = await tx
          .insert(this.table)
          .values(row as PgTable["$inferInsert"])
          .onConflictDoNothing()
          .returning({ refId: this.table.refId })
        if (inserted.length === 0) throw new RefIdTaken()
        await debit(tx)
      })
    } catch (error) {
      if (error instanceof RefIdTaken) await this.refuseTaken(ownerId, refId)
      throw error
    }
  }
}
