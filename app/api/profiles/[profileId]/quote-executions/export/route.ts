import { allPages, csvResponse } from "@/lib/console/csv"
import { pathParams, queryObject } from "@/lib/console/http"
import { consoleRuntime } from "@/lib/console/runtime"
import { withStaff } from "@/lib/console/with-staff"
import { quoteExecutionListQuerySchema } from "@/lib/schemas/quote-execution"
import type { QuoteExecution, QuoteExecutionPage } from "@/lib/schemas/records"

/** The filters an export takes: the list's, without paging (every page is exported). */
const exportQuerySchema = quoteExecutionListQuerySchema.omit({ page_cursor: true, limit: true })

const PAGE_SIZE = 500

const COLUMNS: readonly { header: string; value: (row: QuoteExecution) => unknown }[] = [
  { header: "id", value: (r) => r.id },
  { header: "created_at", value: (r) => r.created_at },
  { header: "settled_at", value: (r) => r.settled_at },
  { header: "status", value: (r) => r.status },
  { header: "market", value: (r) => r.market },
  { header: "side", value: (r) => r.side },
  { header: "price", value: (r) => r.price },
  { header: "base_amount", value: (r) => r.base_amount },
  { header: "base_asset", value: (r) => r.base_asset },
  { header: "quote_amount", value: (r) => r.quote_amount },
  { header: "quote_asset", value: (r) => r.quote_asset },
  { header: "quote_id", value: (r) => r.quote_id },
  { header: "ref_id", value: (r) => r.ref_id },
  { header: "profile_id", value: (r) => r.profile_id },
  { header: "identity_id", value: (r) => r.identity_id },
  { header: "account_id", value: (r) => r.account_id },
  { header: "recipient_profile_id", value: (r) => r.recipient_profile_id },
  { header: "metadata", value: (r) => (r.metadata && Object.keys(r.metadata).length > 0 ? r.metadata : undefined) },
]

// GET /api/profiles/{profileId}/quote-executions/export - CSV of every execution the filters select (streamed, all pages)
export const GET = withStaff<{ profileId: string }>("support", async ({ req, params }) => {
  const { profileId } = pathParams(params, "profileId")
  const filters = exportQuerySchema.parse(queryObject(req))
  const { upstream } = await consoleRuntime()
  const page = (cursor: string | undefined): Promise<QuoteExecutionPage> =>
    upstream.listQuoteExecutions(profileId, { ...filters, limit: PAGE_SIZE, ...(cursor ? { page_cursor: cursor } : {}) })
  // The first page is asked for before answering, so an unknown profile or a service
  // failure is a problem response rather than a broken download.
  const first = await page(undefined)
  let handedOut = false
  return csvResponse({
    filename: `quote-executions-${profileId}-${new Date().toISOString().slice(0, 19).replace(/:/g, "")}Z.csv`,
    columns: COLUMNS,
    pages: () =>
      allPages((cursor) => {
        if (!handedOut && cursor === undefined) {
          handedOut = true
          return Promise.resolve(first)
        }
        return page(cursor)
      }),
  })
})
