import { EXECUTION_CSV_COLUMNS, EXPORT_PAGE_SIZE, csvExport } from "@/lib/console/exports"
import { pathParams } from "@/lib/console/http"
import { attributed } from "@/lib/console/attribution"
import { withStaff } from "@/lib/console/with-staff"
import { quoteExecutionListQuerySchema } from "@/lib/schemas/quote-execution"

/** The filters an export takes: the list's, without paging (every page is exported). */
const exportQuerySchema = quoteExecutionListQuerySchema.omit({ page_cursor: true, limit: true })

// GET /api/profiles/{profileId}/quote-executions/export - CSV of every execution the filters select (streamed, all pages)
export const GET = withStaff<{ profileId: string }>("support", async ({ params, query, runtime }) => {
  const { profileId } = pathParams(params, "profileId")
  const filters = exportQuerySchema.parse(query)
  return csvExport({
    name: `quote-executions-${profileId}`,
    columns: EXECUTION_CSV_COLUMNS,
    fetchPage: async (pageCursor) =>
      attributed(
        runtime.db,
        "create_execution",
        await runtime.upstream.listQuoteExecutions(profileId, {
          ...filters,
          limit: EXPORT_PAGE_SIZE,
          ...(pageCursor ? { page_cursor: pageCursor } : {}),
        }),
      ),
  })
})
