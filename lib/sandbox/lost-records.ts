import "server-only"
import { eq } from "drizzle-orm"
import type { Db } from "@/lib/db/client"
import { sandboxConversions, sandboxExecutions, sandboxTransfers } from "@/lib/db/schema"
import { notFound } from "@/lib/sandbox/problems"
import type { LostRecordAnswer } from "@/lib/schemas/lost-record"

/**
 * The fault "lose a record": the quote execution or conversion `id` is deleted from the
 * service's books (with any transfer that carried a conversion's ref_id) and nothing
 * else changes: the balances it moved stay moved, no event is sent. 404 for an id that
 * is neither.
 */
export async function loseRecord(db: Db, id: string): Promise<LostRecordAnswer> {
  return db.transaction(async (tx) => {
    const [execution] = await tx.delete(sandboxExecutions).where(eq(sandboxExecutions.id, id)).returning({ profileId: sandboxExecutions.profileId })
    if (execution) return { record_id: id, kind: "execution" as const, profile_id: execution.profileId }
    const [conversion] = await tx.delete(sandboxConversions).where(eq(sandboxConversions.id, id)).returning({ profileId: sandboxConversions.profileId, refId: sandboxConversions.refId })
    if (!conversion) throw notFound(`no quote execution or conversion with id ${id}`)
    if (conversion.refId) await tx.delete(sandboxTransfers).where(eq(sandboxTransfers.refId, conversion.refId))
    return { record_id: id, kind: "conversion" as const, profile_id: conversion.profileId }
  })
}
