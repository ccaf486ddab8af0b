import "server-only"

/** RFC 4180 field: quoted when needed; a leading =,+,-,@ is defused so spreadsheets don't run it. */
export function csvField(value: unknown): string {
  if (value === undefined || value === null) return ""
  let text: string
  if (typeof value === "string") text = value
  else if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") text = String(value)
  else text = JSON.stringify(value) ?? ""
  if (/^[=+\-@\t\r]/.test(text) && !/^-?[0-9]*\.?[0-9]+$/.test(text)) text = `'${text}`
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

export function csvLine(values: readonly unknown[]): string {
  return values.map(csvField).join(",") + "\r\n"
}

/**
 * Streams a CSV download of every page a cursor walks: the header first, then each page
 * as it arrives, so a large export neither waits for nor holds everything in memory.
 */
export function csvResponse<T>(options: {
  filename: string
  columns: readonly { header: string; value: (row: T) => unknown }[]
  pages: () => AsyncIterable<readonly T[]>
}): Response {
  const encoder = new TextEncoder()
  const iterator = options.pages()[Symbol.asyncIterator]()
  let headerSent = false
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headerSent) {
        headerSent = true
        controller.enqueue(encoder.encode(csvLine(options.columns.map((c) => c.header))))
        return
      }
      try {
        const next = await iterator.next()
        if (next.done) {
          controller.close()
          return
        }
        const text = next.value.map((row) => csvLine(options.columns.map((c) => c.value(row)))).join("")
        if (text) controller.enqueue(encoder.encode(text))
      } catch (error) {
        controller.error(error)
      }
    },
    async cancel() {
      await iterator.return?.()
    },
  })
  return new Response(stream, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${options.filename.replace(/[^A-Za-z0-9._-]/g, "_")}"`,
      "cache-control": "no-store",
    },
  })
}

/** Walks a cursor-paged list until the service says there is no next page. */
export async function* allPages<T>(
  fetchPage: (cursor: string | undefined) => Promise<{ items: readonly T[]; next_page_cursor?: string | undefined | null }>,
  maxPages = 10_000,
): AsyncGenerator<readonly T[]> {
  let cursor: string | undefined
  for (let page = 0; page < maxPages; page++) {
    const result = await fetchPage(cursor)
    yield result.items
    cursor = result.next_page_cursor || undefined
    if (!cursor) return
  }
}
