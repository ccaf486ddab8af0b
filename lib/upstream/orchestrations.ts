import "server-only"
import { z } from "zod"
import type { ConversionListQuery } from "@/lib/schemas/conversion"
import { type Orchestration, type OrchestrationPage, orchestrationPageSchema, orchestrationSchema } from "@/lib/schemas/orchestration"
import type { Conversion, ConversionPage } from "@/lib/schemas/records"
import { type ApiContext, alreadyExists, requireRefId, seg } from "@/lib/upstream/api-context"
import type { ConversionCreateInput, ConversionOperations } from "@/lib/upstream/operations"
import { UpstreamConfigError } from "@/lib/upstream/errors"
import { isSameConversion } from "@/lib/upstream/matching"
import type { CallSpec } from "@/lib/upstream/request"

/**
 * The service's Orchestrations API behind the console's conversion calls: the console
 * keeps one conversion shape, and this adapter reshapes at the edge.
 *
 * Request: profile_id → source.profile.profile_id; recipient_profile_id (or profile_id)
 * → destination.profile.profile_id; amount → source_amount; target_asset →
 * destination_asset. Answer: the reverse, with the service's statuses as they are
 * (PROCESSING, COMPLETED, FAILED) and `fail_reason`. There is no cancel.
 */

/** An Orchestration as the console's conversion. */
export function orchestrationToConversion(o: Orchestration): Conversion {
  const profileId = o.source?.profile?.profile_id ?? o.profile_id
  const destination = o.destination?.profile?.profile_id
  const out: Conversion = { id: o.id, status: o.status }
  if (profileId !== undefined) out.profile_id = profileId
  if (o.source_amount !== undefined) out.amount = o.source_amount
  if (o.source_asset !== undefined) out.source_asset = o.source_asset
  if (o.destination_asset !== undefined) out.target_asset = o.destination_asset
  if (o.ref_id !== undefined) out.ref_id = o.ref_id
  if (o.identity_id !== undefined) out.identity_id = o.identity_id
  if (o.account_id !== undefined) out.account_id = o.account_id
  if (o.created_at !== undefined) out.created_at = o.created_at
  if (o.updated_at !== undefined) out.updated_at = o.updated_at
  if (o.metadata !== undefined) out.metadata = o.metadata
  if (destination !== undefined && destination !== profileId) out.recipient_profile_id = destination
  if (o.fail_reason !== undefined) out.fail_reason = o.fail_reason
  return out
}

// The answers are parsed as the service sends them, then reshaped; a value the
// console's conversion schema would refuse (an amount that is not a decimal) is refused.
const asConversion: z.ZodType<Conversion> = orchestrationSchema
  .extend({ source_amount: z.string().regex(/^-?[0-9]*\.?[0-9]+$/, "must be a decimal string").optional() })
  .transform(orchestrationToConversion)
const asConversionPage: z.ZodType<ConversionPage> = orchestrationPageSchema.transform((page: OrchestrationPage) => {
  const out: ConversionPage = { items: (page.items ?? page.orchestrations ?? []).map(orchestrationToConversion) }
  if (page.next_page_cursor) out.next_page_cursor = page.next_page_cursor
  return out
})

export function createOrchestrationAdapter(ctx: ApiContext): ConversionOperations {
  const read = { method: "GET" as const, scopes: ctx.scopes, retry: true, mutating: false }
  const page = async (query: Record<string, string | number | undefined>): Promise<ConversionPage> => {
    const url = ctx.apiUrl("/orchestration/orchestrations", query)
    return (await ctx.call({ ...read, op: "listOrchestrations", url, schema: asConversionPage })).value
  }
  return {
    async createConversion(body) {
      const op = "createOrchestration"
      requireRefId(op, body.ref_id)
      const request: Record<string, unknown> = {
        ref_id: body.ref_id,
        source_asset: body.source_asset,
        destination_asset: body.target_asset,
        source_amount: body.amount,
        source: { profile: { profile_id: body.profile_id } },
        destination: { profile: { profile_id: body.recipient_profile_id ?? body.profile_id } },
      }
      if (body.metadata !== undefined) request.metadata = body.metadata
      if (body.identity_id !== undefined) request.identity_id = body.identity_id
      if (body.account_id !== undefined) request.account_id = body.account_id
      const spec: CallSpec<Conversion> = {
        op,
        method: "POST",
        url: ctx.apiUrl("/orchestration/orchestrations"),
        body: request,
        scopes: ctx.scopes,
        schema: asConversion,
        retry: true,
        mutating: true,
        onAlreadyExists: alreadyExists("conversion", asConversion, op, (existing) => isSameOrchestration(body, existing)),
      }
      const { value, replayed, attempts } = await ctx.call(spec)
      return { record: value, replayed, attempts }
    },
    async getConversion(id) {
      const url = ctx.apiUrl(`/orchestration/orchestrations/${seg(id)}`)
      return (await ctx.call({ ...read, op: "getOrchestration", url, schema: asConversion })).value
    },
    async listConversions(query: ConversionListQuery = {}) {
      const base = {
        profile_id: query.profile_id,
        "created_at.gte": query["created_at.begin"],
        "created_at.lte": query["created_at.end"],
        order: query.order,
      }
      const updatedFrom = query["updated_at.begin"] ? Date.parse(query["updated_at.begin"]) : undefined
      const updatedTo = query["updated_at.end"] ? Date.parse(query["updated_at.end"]) : undefined
      const keep = (c: Conversion) => {
        if (updatedFrom === undefined && updatedTo === undefined) return true
        const at = c.updated_at ? Date.parse(c.updated_at) : Number.NaN
        return (updatedFrom === undefined || at >= updatedFrom) && (updatedTo === undefined || at <= updatedTo)
      }
      if (query.ref_id !== undefined) {
        // The service's ref_id filter; ref_ids are unique per customer: the first match is the only one.
        const found = await page({ ...base, ref_id: query.ref_id, limit: 1 })
        const match = found.items.find((c) => c.ref_id === query.ref_id && keep(c))
        return { items: match ? [match] : [] }
      }
      const found = await page({ ...base, limit: query.limit, page_cursor: query.page_cursor })
      // The service has no updated_at filter: a page keeps only the rows inside it (it may come back short).
      return { ...found, items: found.items.filter(keep) }
    },
    cancelConversion(id) {
      // The console refuses a cancel before it gets here (see lib/console/operations.ts).
      return Promise.reject(
        new UpstreamConfigError(`conversion ${id} cannot be cancelled: the Orchestrations API has no cancel operation`, {
          operation: "cancelConversion",
        }),
      )
    },
  }
}

/** The same request as a retry of this ref_id would send: profile, destination, assets and amount. */
function isSameOrchestration(body: ConversionCreateInput, existing: Conversion): boolean {
  if (existing.ref_id !== undefined && existing.ref_id !== body.ref_id) return false
  const destination = existing.recipient_profile_id ?? existing.profile_id
  return (
    isSameConversion(body, existing) && destination === (body.recipient_profile_id ?? body.profile_id)
  )
}
