import "server-only"
import { HttpProblem } from "@/lib/console/problem"
import type { Conversion } from "@/lib/schemas/records"
import { type UpstreamClient, UpstreamProblemError } from "@/lib/upstream"

export interface ConversionLookup {
  conversion: Conversion
  matched_by: "id" | "ref_id"
}

/**
 * Finds a conversion from what a person pasted: its id, else its ref_id. The service
 * answers 404 for an id it does not know (400 if it is not even id-shaped); then the
 * list filtered by ref_id decides. Neither → a 404 that says so in plain words.
 */
export async function lookupConversion(
  upstream: Pick<UpstreamClient, "getConversion" | "listConversions">,
  q: string,
): Promise<ConversionLookup> {
  try {
    return { conversion: await upstream.getConversion(q), matched_by: "id" }
  } catch (error) {
    if (!(error instanceof UpstreamProblemError && (error.status === 404 || error.status === 400))) throw error
  }
  const page = await upstream.listConversions({ ref_id: q, limit: 1 })
  const found = page.items[0]
  if (found) return { conversion: found, matched_by: "ref_id" }
  throw new HttpProblem({
    status: 404,
    detail: `No conversion has the id or ref_id “${q}”. Check it for typos; ids and ref_ids are matched exactly.`,
  })
}
