import type { InvalidateQueryFilters, QueryClient } from "@tanstack/react-query"

/**
 * Marks the queries a pushed change touches as stale without cancelling a fetch in flight.
 *
 * `invalidateQueries`' default (`cancelRefetch: true`) cancels a fetch already running: on an
 * infinite list that is the person's "Load more", whose refetch then reads only the pages
 * already shown, so the page they asked for is silently dropped. Here a running fetch is left
 * to finish; as it may have been answered before the change, the queries are asked once more
 * when it is done, so the change is not lost either.
 */
export function invalidatePushed(client: QueryClient, filters: InvalidateQueryFilters): Promise<void> {
  const busy = client.isFetching(filters) > 0
  return client.invalidateQueries(filters, { cancelRefetch: false }).then(() => {
    if (busy) return client.invalidateQueries(filters, { cancelRefetch: false })
  })
}
