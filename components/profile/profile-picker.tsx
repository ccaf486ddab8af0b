"use client"

import { Field, Select } from "@/components/ui/field"
import type { Profile } from "@/lib/schemas/records"

/** Chooses the profile to work on; the choice is remembered (see useSelectedProfile). */
export function ProfilePicker({
  profiles,
  profileId,
  onChange,
  disabled,
}: {
  profiles: Profile[]
  profileId: string | null
  onChange: (id: string) => void
  disabled?: boolean
}) {
  return (
    <Field label="Profile">
      {(a11y) => (
        <Select {...a11y} value={profileId ?? ""} disabled={disabled || profiles.length === 0} onChange={(e) => onChange(e.target.value)}>
          {profiles.length === 0 ? <option value="">Loading profiles…</option> : null}
          {profiles.map((p) => (
            <option key={p.id} value={p.id}>
              {p.nickname}
            </option>
          ))}
        </Select>
      )}
    </Field>
  )
}
