/**
 * What a list says where its rows would be: loading, a refusal (`error`, an alert), or
 * nothing to show (`noun`: "transfers"; `emptyText` when "No … match these filters." is
 * not what happened). No hooks: server pages use it too (list-parts re-exports it).
 */
export function ListState({ pending = false, empty, noun, error, emptyText }: { pending?: boolean; empty: boolean; noun: string; error?: string | null | undefined; emptyText?: string | undefined }) {
  if (error) {
    return (
      <p role="alert" className="text-sm font-medium text-red-700">
        {error}
      </p>
    )
  }
  if (pending) {
    return (
      <p role="status" className="px-3 py-4 text-sm text-slate-700">
        Loading {noun}…
      </p>
    )
  }
  if (empty) {
    return (
      <p className="px-3 py-4 text-sm text-slate-700" data-testid="no-rows">
        {emptyText ?? `No ${noun} match these filters.`}
      </p>
    )
  }
  return null
}
