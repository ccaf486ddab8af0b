/** Query-key factories: every cache entry of a resource starts with its `all` key. */
export const profileKeys = {
  all: ["profiles"] as const,
  list: () => [...profileKeys.all, "list"] as const,
  balances: (profileId: string) => [...profileKeys.all, profileId, "balances"] as const,
}

export const quoteKeys = {
  all: ["quotes"] as const,
  markets: (markets: readonly string[]) => [...quoteKeys.all, [...markets].sort().join(",")] as const,
}

export const executionKeys = {
  all: ["executions"] as const,
  list: (profileId: string, filters: Record<string, string | undefined>) => [...executionKeys.all, "list", profileId, filters] as const,
  detail: (profileId: string, id: string) => [...executionKeys.all, "detail", profileId, id] as const,
}

export const conversionKeys = {
  all: ["conversions"] as const,
  list: (filters: Record<string, string | undefined>) => [...conversionKeys.all, "list", filters] as const,
  detail: (id: string) => [...conversionKeys.all, "detail", id] as const,
}

export const auditKeys = {
  all: ["audit"] as const,
  list: (filters: Record<string, string | undefined>) => [...auditKeys.all, "list", filters] as const,
}

export const sandboxKeys = {
  all: ["sandbox"] as const,
  faults: () => [...sandboxKeys.all, "faults"] as const,
  /** The banner's fault status (lib/queries/sandbox-status.ts), polled or pushed on the stream. */
  status: () => [...sandboxKeys.all, "status"] as const,
}

export const marketKeys = {
  all: ["markets"] as const,
  history: (market: string, range: string) => [...marketKeys.all, "history", market, range] as const,
  prices: () => [...marketKeys.all, "prices"] as const,
}

export const overviewKeys = {
  all: ["overview"] as const,
}

export const approvalKeys = {
  all: ["approvals"] as const,
  list: (filters: Record<string, string | undefined>) => [...approvalKeys.all, "list", filters] as const,
  detail: (id: string) => [...approvalKeys.all, "detail", id] as const,
  policy: () => [...approvalKeys.all, "policy"] as const,
  policyChanges: () => [...approvalKeys.all, "policy", "changes"] as const,
}

export const notificationKeys = {
  all: ["notifications"] as const,
  feed: (person: string) => [...notificationKeys.all, person] as const,
}

export const inboxKeys = {
  all: ["inbox"] as const,
  mine: () => [...inboxKeys.all, "mine"] as const,
  preferences: () => [...inboxKeys.all, "preferences"] as const,
  channels: () => [...inboxKeys.all, "channels"] as const,
  settings: () => [...inboxKeys.all, "settings"] as const,
  deliveries: (state: string | undefined) => [...inboxKeys.all, "deliveries", state ?? "all"] as const,
}

export const searchKeys = {
  all: ["search"] as const,
  query: (q: string) => [...searchKeys.all, q] as const,
}

export const intentKeys = {
  all: ["intents"] as const,
  detail: (id: string) => [...intentKeys.all, "detail", id] as const,
  ofRecord: (recordId: string) => [...intentKeys.all, "record", recordId] as const,
}

export const transferKeys = {
  all: ["transfers"] as const,
  list: (filters: Record<string, string | undefined>) => [...transferKeys.all, "list", filters] as const,
  detail: (id: string) => [...transferKeys.all, "detail", id] as const,
}
export const passkeyKeys = {
  all: ["passkeys"] as const,
}
