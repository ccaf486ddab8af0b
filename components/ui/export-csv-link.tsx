/**
 * The one "Export CSV" control of every list: a plain download link to the list's export
 * route with the applied filters, so the browser streams the file itself.
 */
export function ExportCsvLink({ href, className = "" }: { href: string; className?: string }) {
  return (
    <a
      href={href}
      download
      data-testid="export-csv"
      className={`inline-flex h-10 items-center rounded-md border border-slate-300 bg-white px-4 text-sm font-medium text-slate-900 hover:bg-slate-100 ${className}`}
    >
      Export CSV
    </a>
  )
}
