import { useState } from "react"
import { type DefaultValues, type FieldValues, type Resolver, useForm } from "react-hook-form"
import { Button } from "@/components/ui/button"
import { ExportCsvLink } from "@/components/ui/export-csv-link"

export { ListState } from "@/components/ui/list-state"

/** The end of every list's filter form: apply, clear (back to no filter), and the export of what the filters select. */
export function FilterActions({ onClear, exportHref }: { onClear: () => void; exportHref: string }) {
  return (
    <div className="flex flex-wrap items-center gap-3">
      <Button type="submit" variant="secondary">
        Apply filters
      </Button>
      <Button variant="ghost" onClick={onClear}>
        Clear
      </Button>
      <ExportCsvLink href={exportHref} className="ml-auto" />
    </div>
  )
}

/**
 * A list's filter form and the filters it last applied, kept in the address bar (`path`
 * plus `toSearch`'s query) so a reload or a shared link shows the same view. `apply` is the
 * form's submit; `clear` empties the form and applies `empty`.
 */
export function useAddressBarFilters<V extends FieldValues>({
  path,
  initial,
  empty,
  resolver,
  toSearch,
}: {
  path: string
  initial: V
  empty: V
  resolver: Resolver<V>
  toSearch: (values: V) => string
}) {
  const [applied, setApplied] = useState<V>(initial)
  const form = useForm<V>({ resolver, mode: "onChange", defaultValues: initial as DefaultValues<V> })
  function apply(values: V) {
    setApplied(values)
    window.history.replaceState(null, "", `${path}${toSearch(values)}`)
  }
  function clear() {
    form.reset(empty)
    apply(empty)
  }
  return { applied, form, onApply: form.handleSubmit(apply), clear }
}
