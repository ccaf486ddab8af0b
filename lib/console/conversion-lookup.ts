import "server-only"
import type { ConsoleDeps } from "@/lib/console/operations"
import { type CreateIntentView, conversionCreateIntent } from "@/lib/console/intents"
import { inFlight, notFound } from "@/lib/problem"
import { type ConversionsApi, isConversionsApi } from "@/lib/schemas/constants"
import type { Conversion } from "@/lib/schemas/records"
import { type UpstreamClient, UpstreamProblemError } from "@/lib/upstream"

export interface ConversionLookup {
  conversion: Conversion
  matched_by: "id" | "ref_id"
}

/** GET /api/conversions/lookup: the console's own intent log first, then the service. */
export function lookupConversionFor(deps: ConsoleDeps, q: string): Promise<ConversionLookup> {
  return lookupConversion(deps.upstream, q, (refId) => conversionCreateIntent(deps.db, refId), (api) => deps.upstream.conversionsVia(api))
}

/**
 * Finds a conversion from what a person pasted: its id, else its ref_id.
 *
 * The intent log is read first. A create this console placed with that ref_id holds the
 * record's id, so one call fetches it. A create still on its way (PENDING) or sent without
 * an answer (UNKNOWN) makes "not found" a guess: then a 409 says to look again in a
 * moment, since a form that asks before it starts a new submission takes a 404 for "not
 * placed". Reading it first also means a create that settles while the service is being
 * asked is either found or still counted as in flight, never a 404.
 *
 * Otherwise the service decides: it answers 404 for an id it does not know (400 if it is
 * not even id-shaped); then the list filtered by ref_id. Neither → a 404 in plain words.
 */
export async function lookupConversion(
  upstream: Pick<UpstreamClient, "getConversion" | "listConversions">,
  q: string,
  createIntent: (refId: string) => Promise<CreateIntentView | null> = () => Promise.resolve(null),
  /** The conversion API that placed a record, when it is not the one in use (a demo switched). */
  via: (api: ConversionsApi) => Pick<UpstreamClient, "getConversion"> = () => upstream,
): Promise<ConversionLookup> {
  // As pasted first, then without the spaces around it (ref_ids are kept exactly as sent).
  const candidates = [...new Set([q, q.trim()])].filter((c) => c !== "")
  const intents = (await Promise.all(candidates.map((c) => createIntent(c)))).filter((i) => i !== null)
  const placed = intents.find((i) => i.state === "SUCCEEDED" && i.recordId !== null)
  if (placed?.recordId) {
    const placedVia = isConversionsApi(placed.upstreamApi) ? via(placed.upstreamApi) : upstream
    return { conversion: await placedVia.getConversion(placed.recordId), matched_by: "ref_id" }
  }
  const stillPlacing = intents.some((i) => i.state === "PENDING" || i.state === "UNKNOWN")
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
  if (stillPlacing) {
    throw inFlight(`A conversion with ref_id “${shown}” is still being placed, or its outcome is not known yet; retry that submission, or look again in a minute.`)
  }
  throw notFound(`No conversion has the id or ref_id “${shown}”. Check it for typos; ids and ref_ids are matched exactly.`)
}
