"use client"

import { Field, Select } from "@/components/ui/field"

/** Chooses the market whose held quotes the board shows. */
export function MarketPicker({ markets, market, onChange }: { markets: readonly string[]; market: string; onChange: (market: string) => void }) {
  return (
    <Field label="Market">
      {(a11y) => (
        <Select {...a11y} value={market} onChange={(e) => onChange(e.target.value)}>
          {markets.map((m) => (
            <option key={m} value={m}>
              {m}
            </option>
          ))}
        </Select>
      )}
    </Field>
  )
}
