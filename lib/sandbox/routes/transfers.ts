import "server-only"
import { TRANSFERS_SCOPE, TRANSFER_LIST_FILTERS, type TransferListFilter, transferListQuerySchema } from "@/lib/schemas/events-transfers"
import { type Middleware, type SandboxServices, json, router } from "@/lib/sandbox/routes/context"
import { listParam, parseOrThrow, queryFor } from "@/lib/sandbox/validation"

/** /sandbox/v2/transfer/transfers (scope transfer:read_transfer) */
export function transferRoutes(s: SandboxServices, m: Middleware) {
  const read = m.scope(TRANSFERS_SCOPE)
  return (
    router()
      // GET /sandbox/v2/transfer/transfers - every movement of the client's profiles' funds
      .get("/", read, m.fault("list"), async (c) => {
        const url = new URL(c.req.url)
        const query = parseOrThrow(transferListQuerySchema, queryFor(url, Object.keys(transferListQuerySchema.shape)))
        const lists: Partial<Record<TransferListFilter, string[]>> = {}
        for (const name of TRANSFER_LIST_FILTERS) {
          const values = listParam(url, name)
          if (values.length > 0) lists[name] = values
        }
        return json(c, await s.transfers.list(c.get("principal").clientId, query, lists))
      })
      // GET /sandbox/v2/transfer/transfers/{id} - one transfer
      .get("/:id", read, m.fault("get"), async (c) => json(c, await s.transfers.get(c.get("principal").clientId, c.req.param("id"))))
  )
}
