/** The console's page of an execution (executions live under their profile). */
export function executionPath(profileId: string, id: string): string {
  return `/executions/${encodeURIComponent(profileId)}/${encodeURIComponent(id)}`
}

/** The console's page of a transfer (a deposit, a withdrawal, a leg of a conversion). */
export function transferPath(id: string): string {
  return `/transfers/${encodeURIComponent(id)}`
}

/** The console's page of a conversion. */
export function conversionPath(id: string): string {
  return `/conversions/${encodeURIComponent(id)}`
}
