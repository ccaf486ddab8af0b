/**
 * Reads CSV the way a spreadsheet does (RFC 4180: quoted fields may hold commas, doubled
 * quotes and line breaks; rows end with CRLF), for the tests of the CSV exports.
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let field = ""
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"'
        i++
      } else if (c === '"') quoted = false
      else field += c
    } else if (c === '"') quoted = true
    else if (c === ",") {
      row.push(field)
      field = ""
    } else if (c === "\r" && text[i + 1] === "\n") {
      row.push(field)
      rows.push(row)
      row = []
      field = ""
      i++
    } else field += c
  }
  if (field || row.length) rows.push([...row, field])
  return rows
}

/** The rows below the header, each as `{ column: value }`. */
export function parseCsvRecords(text: string): Record<string, string>[] {
  const [header = [], ...body] = parseCsv(text)
  return body.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i] ?? ""])))
}
