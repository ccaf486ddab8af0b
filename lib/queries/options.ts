import type { DefaultError, InfiniteData, QueryKey, UseInfiniteQueryOptions, UseMutationOptions, UseQueryOptions } from "@tanstack/react-query"

/**
 * What a caller may pass through to a query hook: every TanStack Query option except the
 * ones the hook owns (its key and its fetcher). `enabled` is combined with the hook's own
 * gate (see `gated`): a query whose parameters are missing never runs.
 */
export type QueryOptions<T> = Omit<UseQueryOptions<T, DefaultError, T, QueryKey>, "queryKey" | "queryFn" | "enabled"> & { enabled?: boolean }

/** The same for a "Load more" list: the hook owns its key, fetcher and cursor. */
export type InfiniteQueryOptions<TPage> = Omit<
  UseInfiniteQueryOptions<TPage, DefaultError, InfiniteData<TPage, string | undefined>, QueryKey, string | undefined>,
  "queryKey" | "queryFn" | "initialPageParam" | "getNextPageParam" | "enabled"
> & { enabled?: boolean }

/** The same for a mutation: the hook owns its request; the caller's `onSuccess` runs after the hook's own. */
export type MutationOptions<TData, TVariables> = Omit<UseMutationOptions<TData, DefaultError, TVariables>, "mutationFn">

/** The hook's gate (its parameters are there) and the caller's `enabled`. */
export function gated(ready: boolean, enabled: boolean | undefined): boolean {
  return ready && enabled !== false
}
