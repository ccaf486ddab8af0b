"use client"

import { recoveredNote } from "@/components/intents/attempts"
import { useRecordIntentsQuery } from "@/lib/queries/search"

/**
 * "recovered after N attempts" under a placed record's result when the console's intent
 * behind it needed retries; nothing for a clean placement, nor while (or if) the console
 * cannot say.
 */
export function RecoveredAfter({ recordId }: { recordId: string }) {
  // The intent is resolved by the time its record is shown: one read is enough.
  const query = useRecordIntentsQuery(recordId, { retry: false, staleTime: Infinity })
  const note = query.data ? recoveredNote(query.data.items) : null
  if (!note) return null
  return (
    <p className="mt-1 text-xs font-medium text-amber-900" data-testid="result-attempts" title="Sends to the service for this ref_id, retries included">
      {note}
    </p>
  )
}
