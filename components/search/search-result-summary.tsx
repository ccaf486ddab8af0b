import { Alert } from "@/components/ui/alert"
import type { SearchResult } from "@/lib/schemas/search"
import { SOURCE_WORDS, failedWhere, searchedWhere } from "./format"

/** What a search looked through: "nothing found" in plain words, and a partial answer said as one. */
export function SearchResultSummary({ result, detailed = false }: { result: SearchResult; detailed?: boolean }) {
  const failed = failedWhere(result)
  return (
    <div className="space-y-2 text-sm">
      {result.matches.length === 0 ? (
        <p data-testid="search-none">
          Nothing found for <q className="break-all font-mono">{result.q}</q>. Searched {searchedWhere(result)}.
        </p>
      ) : null}
      {result.partial ? (
        <Alert tone="warning" title="Partial answer">
          <p data-testid="search-partial">
            {failed ? `Could not search ${failed}.` : "Part of the search was cut short."} There may be matches this search did not see; try again in a moment.
          </p>
        </Alert>
      ) : null}
      {detailed ? (
        <ul className="space-y-0.5 text-slate-700" aria-label="Where the search looked">
          {result.sources.map((s) => (
            <li key={s.source}>
              <span className="font-medium">{SOURCE_WORDS[s.source]}</span>: {s.state}, {s.detail}
            </li>
          ))}
          <li>
            {result.service_calls} call{result.service_calls === 1 ? "" : "s"} to the service
          </li>
        </ul>
      ) : null}
    </div>
  )
}
