import "server-only"
import { conversionCreateSchema, conversionListQuerySchema } from "@/lib/schemas/conversion"
import { type Middleware, type SandboxServices, json, router } from "@/lib/sandbox/routes/context"
import { parseOrThrow, queryFor, readJsonObject } from "@/lib/sandbox/validation"

/** /sandbox/v2/conversion/stablecoins */
export function conversionRoutes(s: SandboxServices, m: Middleware) {
  const read = m.scope("conversion:read_conversion_stablecoin")
  const write = m.scope("conversion:write_conversion_stablecoin")
  return (
    router()
      // POST /sandbox/v2/conversion/stablecoins - create a conversion
      .post("/", write, m.fault("create_conversion"), async (c) => {
        const input = parseOrThrow(conversionCreateSchema, await readJsonObject(c.req.raw))
        const { record } = await s.conversions.create(c.get("principal").clientId, input)
        await m.stored(c)
        return json(c, record)
      })
      // GET /sandbox/v2/conversion/stablecoins - list with filters and cursor paging
      .get("/", read, m.fault("list"), async (c) => {
        const raw = queryFor(new URL(c.req.url), Object.keys(conversionListQuerySchema.shape))
        return json(c, await s.conversions.list(c.get("principal").clientId, parseOrThrow(conversionListQuerySchema, raw)))
      })
      // GET /sandbox/v2/conversion/stablecoins/{id} - one conversion
      .get("/:id", read, m.fault("get"), async (c) => json(c, await s.conversions.get(c.get("principal").clientId, c.req.param("id"))))
      // DELETE /sandbox/v2/conversion/stablecoins/{id} - cancel a CREATED conversion
      .delete("/:id", write, m.fault("cancel"), async (c) => {
        const { record } = await s.conversions.cancel(c.get("principal").clientId, c.req.param("id"))
        return json(c, record)
      })
  )
}
