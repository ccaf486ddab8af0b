import { CONVERSION_CSV_COLUMNS, EXPORT_PAGE_SIZE, csvExport } from "@/lib/console/exports"
import { attributed } from "@/lib/console/attribution"
import { withStaff } from "@/lib/console/with-staff"
import { conversionListQuerySchema } from "@/lib/schemas/conversion"

const exportQuerySchema = conversionListQuerySchema.omit({ page_cursor: true, limit: true })

// GET /api/conversions/export - CSV of every conversion the filters select, all pages, streamed
export const GET = withStaff("support", async ({ query, runtime }) => {
  const filters = exportQuerySchema.parse(query)
  return csvExport({
    name: "conversions",
    columns: CONVERSION_CSV_COLUMNS,
    fetchPage: async (pageCursor) =>
      attributed(
        runtime.db,
        "create_conversion",
        await runtime.upstream.listConversions({ ...filters, limit: EXPORT_PAGE_SIZE, ...(pageCursor ? { page_cursor: pageCursor } : {}) }),
      ),
  })
})
