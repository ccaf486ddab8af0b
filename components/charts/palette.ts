/**
 * Slice colours, distinct on light and dark backgrounds and from each other (no colour
 * twice in one donut: the overview folds slices past this many into "Other"); a legend
 * always names each slice, so colour is never the only cue.
 */
export const SLICE_COLOURS = [
  "#2563eb",
  "#16a34a",
  "#d97706",
  "#9333ea",
  "#dc2626",
  "#0891b2",
  "#65a30d",
  "#db2777",
  "#64748b",
  "#ca8a04",
  "#0d9488",
  "#7c3aed",
  "#ea580c",
  "#4f46e5",
  "#be123c",
  "#854d0e",
]

export function sliceColour(index: number): string {
  return SLICE_COLOURS[index % SLICE_COLOURS.length] ?? "#64748b"
}
