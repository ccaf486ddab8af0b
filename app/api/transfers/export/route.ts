import { EXPORT_PAGE_SIZE, TRANSFER_CSV_COLUMNS, csvExport } from "@/lib/console/exports"
import { listConsoleTransfers } from "@/lib/console/transfers"
import { withStaff } from "@/lib/console/with-staff"
import { transferListQuerySchema } from "@/lib/schemas/transfer"

const exportQuerySchema = transferListQuerySchema.omit({ page_cursor: true, limit: true })

// GET /api/transfers/export - CSV of every transfer the filters select, all pages, streamed
export const GET = withStaff("support", async ({ query, runtime }) => {
  const filters = exportQuerySchema.parse(query)
  return csvExport({
    name: "transfers",
    columns: TRANSFER_CSV_COLUMNS,
    fetchPage: (pageCursor) =>
      listConsoleTransfers(runtime.upstream, { ...filters, limit: EXPORT_PAGE_SIZE, ...(pageCursor ? { page_cursor: pageCursor } : {}) }),
  })
})
