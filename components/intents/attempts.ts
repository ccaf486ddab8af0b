/** An intent's attempts as the audit trail and a placed record's result word them. */
export interface Attempted {
  state: string
  attempts: number
}

/** "recovered after N attempts" for an intent that succeeded after retries, "N attempts" for one that has not; null for a clean one. */
export function attemptsNote({ state, attempts }: Attempted): string | null {
  if (!(attempts > 1)) return null
  return state === "SUCCEEDED" ? `recovered after ${attempts} attempts` : `${attempts} attempts`
}

const PLACING = new Set(["create_execution", "create_conversion"])

/**
 * "recovered after N attempts" when the console's intent that placed a record took more
 * than one send to the service; null when it took one, or when the console did not place it.
 */
export function recoveredNote(intents: readonly (Attempted & { operation: string })[]): string | null {
  const placing = intents.find((intent) => PLACING.has(intent.operation) && intent.state === "SUCCEEDED")
  return placing ? attemptsNote(placing) : null
}
