import "server-only"
import { and, eq, inArray } from "drizzle-orm"
import { HttpProblem } from "@/lib/console/problem"
import type { Db } from "@/lib/db/client"
import { consoleIntents } from "@/lib/db/schema"
import type { Conversion } from "@/lib/schemas/records"
import { type UpstreamClient, UpstreamProblemError } from "@/lib/upstream"

export interface ConversionLookup {
  conversion: Conversion
  matched_by: "id" | "ref_id"
}

/**
 * Finds a conversion from what a person pasted: its id, else its ref_id. The service
 * answers 404 for an id it does not know (400 if it is not even id-shaped); then the
 * list filtered by ref_id decides. Neither → a 404 that says so in plain words, unless
 * a create with that ref_id is still on its way to the service (`createInFlight`): then
 * "not found" would be a guess, so a 409 says to look again in a moment. A form that
 * asks before it starts a new submission relies on this: a 404 means "not placed".
 */
export async function lookupConversion(
  upstream: Pick<UpstreamClient, "getConversion" | "listConversions">,
  q: string,
  createInFlight: (refId: string) => Promise<boolean> = () => Promise.resolve(false),
): Promise<ConversionLookup> {
  // Read the intent log first: a create that settles while the service is being asked
  // is then either found there or still counted as in flight, never a 404.
  const candidates = [...new Set([q, q.trim()])].filter((c) => c !== "")
  const inFlight = (await Promise.all(candidates.map((c) => createInFlight(c)))).some(Boolean)
  // As pasted first, then without the spaces around it (ref_ids are kept exactly as sent).
  for (const candidate of candidates) {
    try {
      return { conversion: await upstream.getConversion(candidate), matched_by: "id" }
    } catch (error) {
      if (!(error instanceof UpstreamProblemError && (error.status === 404 || error.status === 400))) throw error
    }
    const page = await upstream.listConversions({ ref_id: candidate, limit: 1 })
    const found = page.items[0]
    if (found) return { conversion: found, matched_by: "ref_id" }
  }
  const shown = q.trim()
  if (inFlight) {
    throw new HttpProblem({
      status: 409,
      title: "Conflict",
      detail: `A conversion with ref_id “${shown}” is still being placed, or its outcome is not known yet; retry that submission, or look again in a minute.`,
      meta: { in_flight: true },
    })
  }
  throw new HttpProblem({
    status: 404,
    detail: `No conversion has the id or ref_id “${shown}”. Check it for typos; ids and ref_ids are matched exactly.`,
  })
}

/**
 * Whether the intent log holds a create with this ref_id whose outcome is not settled:
 * still on its way (PENDING), or sent without an answer (UNKNOWN). The reconciler places
 * an UNKNOWN create the service does not have, so until it has run, "not found" is not
 * "never placed": a new submission started then would make a second conversion.
 */
export async function conversionCreateInFlight(db: Db, refId: string): Promise<boolean> {
  const rows = await db
    .select({ id: consoleIntents.id })
    .from(consoleIntents)
    .where(
      and(
        eq(consoleIntents.operation, "create_conversion"),
        eq(consoleIntents.refId, refId),
        inArray(consoleIntents.state, ["PENDING", "UNKNOWN"]),
      ),
    )
    .limit(1)
  return rows.length > 0
}
