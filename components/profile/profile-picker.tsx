"use client"

import { Field, Select } from "@/components/ui/field"
import type { Profile } from "@/lib/schemas/records"

/** Chooses the profile to work on; the choice is remembered (see useSelectedProfile). */
export function ProfilePicker({
  profiles,
  profileId,
  onChange,
  disabled,
  error,
}: {
  profiles: Profile[]
  profileId: string | null
  onChange: (id: string) => void
  disabled?: boolean
  /** A rule about the choice, shown under it and tied to it for screen readers. */
  error?: string | undefined
}) {
  return (
    <Field label="Profile" error={error}>
      {(a11y) => (
        <Select {...a11y} value={profileId ?? ""} disabled={disabled || profiles.length === 0} onChange={(e) => onChange(e.target.value)}>
          {profiles.length === 0 ? <option value="">Loading profiles…</option> : null}
          <ProfileOptions profiles={profiles} />
        </Select>
      )}
    </Field>
  )
}

/** The profiles as a select's options: the nickname shown, the id chosen. */
export function ProfileOptions({ profiles }: { profiles: Profile[] }) {
  return profiles.map((p) => (
    <option key={p.id} value={p.id}>
      {p.nickname}
    </option>
  ))
}
