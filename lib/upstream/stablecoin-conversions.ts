import "server-only"
import { type Conversion, conversionPageSchema, conversionSchema } from "@/lib/schemas/records"
import { type ApiContext, alreadyExists, requireRefId, seg } from "@/lib/upstream/api-context"
import { isSameConversion } from "@/lib/upstream/matching"
import type { ConversionOperations } from "@/lib/upstream/operations"
import type { CallSpec } from "@/lib/upstream/request"

/** The conversion API of the service interface (/v2/conversion/stablecoins). */
export function createStablecoinConversionAdapter(ctx: ApiContext): ConversionOperations {
  const read = { method: "GET" as const, scopes: ctx.scopes, retry: true, mutating: false }
  return {
    async createConversion(body) {
      const op = "createConversion"
      requireRefId(op, body.ref_id)
      const spec: CallSpec<Conversion> = {
        op,
        method: "POST",
        url: ctx.apiUrl("/conversion/stablecoins"),
        body,
        scopes: ctx.scopes,
        schema: conversionSchema,
        retry: true,
        mutating: true,
        onAlreadyExists: alreadyExists("conversion", conversionSchema, op, (existing) => isSameConversion(body, existing)),
      }
      const { value, replayed, attempts } = await ctx.call(spec)
      return { record: value, replayed, attempts }
    },
    async getConversion(id) {
      const url = ctx.apiUrl(`/conversion/stablecoins/${seg(id)}`)
      return (await ctx.call({ ...read, op: "getConversion", url, schema: conversionSchema })).value
    },
    async listConversions(query) {
      const url = ctx.apiUrl("/conversion/stablecoins", query)
      return (await ctx.call({ ...read, op: "listConversions", url, schema: conversionPageSchema })).value
    },
    async cancelConversion(id) {
      const url = ctx.apiUrl(`/conversion/stablecoins/${seg(id)}`)
      const spec: CallSpec<Conversion> = {
        op: "cancelConversion",
        method: "DELETE",
        url,
        scopes: ctx.scopes,
        schema: conversionSchema,
        retry: false,
        mutating: true,
      }
      return (await ctx.call(spec)).value
    },
  }
}
