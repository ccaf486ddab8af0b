import { allPages, csvResponse } from "@/lib/console/csv"
import { queryObject } from "@/lib/console/http"
import { consoleRuntime } from "@/lib/console/runtime"
import { withStaff } from "@/lib/console/with-staff"
import { conversionListQuerySchema } from "@/lib/schemas/conversion"
import { CONVERSION_CSV_COLUMNS } from "./columns"

const exportQuerySchema = conversionListQuerySchema.omit({ page_cursor: true, limit: true })
const PAGE_SIZE = 1000

// GET /api/conversions/export - CSV of every conversion the filters select, all pages, streamed
export const GET = withStaff("support", async ({ req }) => {
  const filters = exportQuerySchema.parse(queryObject(req))
  const { upstream } = await consoleRuntime()
  const page = (cursor: string | undefined) =>
    upstream.listConversions({ ...filters, limit: PAGE_SIZE, ...(cursor ? { page_cursor: cursor } : {}) })
  // The first page is read before answering, so a refused filter is a problem, not a broken download.
  const first = await page(undefined)
  return csvResponse({
    filename: `conversions-${new Date().toISOString().slice(0, 19).replace(/[:T]/g, "-")}.csv`,
    columns: CONVERSION_CSV_COLUMNS,
    pages: () => allPages((cursor) => (cursor === undefined ? Promise.resolve(first) : page(cursor))),
  })
})
