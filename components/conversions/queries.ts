"use client"

import { ApiProblemError, apiFetch, toQuery } from "@/lib/queries/api"
import type { Conversion } from "@/lib/schemas/records"

export type ConversionLookupResult = { conversion: Conversion; matched_by: "id" | "ref_id" }

// The answer's schema is loaded with the first answer: the page starts without zod.
const conversionLookupSchema = () => import("./lookup-schema").then((m) => m.conversionLookupSchema)

/** One conversion by its id, else by its ref_id (the console tries both). */
export function fetchConversionLookup(q: string, signal?: AbortSignal): Promise<ConversionLookupResult> {
  return apiFetch(`/api/conversions/lookup${toQuery({ q })}`, { signal, schema: conversionLookupSchema })
}

/** A fresh ref_id for a new submission (a UUID; falls back to getRandomValues off secure origins). */
export function newRefId(): string {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID()
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/** What became of a submission whose answer never arrived (a network error, a 5xx, a 429). */
export type EarlierSubmission =
  | { placed: true; record: Conversion }
  | { placed: false }
  /** Could not tell (the look-up failed, or the create is still on its way): do not start another. */
  | { placed: "unknown"; error: unknown }

/**
 * Asks the console whether a conversion exists under `refId`. Only a plain 404 means it
 * was not placed; anything else leaves the question open, so the caller must not mint a
 * new ref_id (that could place the same conversion twice).
 */
export async function resolveEarlierSubmission(
  refId: string,
  lookup: (q: string) => Promise<ConversionLookupResult> = (q) => fetchConversionLookup(q),
): Promise<EarlierSubmission> {
  try {
    const found = await lookup(refId)
    if (found.conversion.ref_id === refId) return { placed: true, record: found.conversion }
    return { placed: "unknown", error: new Error(`The look-up of ref_id ${refId} found a different conversion; retry the same submission instead.`) }
  } catch (error) {
    if (error instanceof ApiProblemError && error.status === 404) return { placed: false }
    return { placed: "unknown", error }
  }
}
