import type { Conversion } from "@/lib/schemas/records"

/**
 * "2026-01-31 12:00:05 UTC": one unambiguous zone for everyone on the desk. Fractional
 * seconds beyond milliseconds (the service sends up to nanoseconds) are cut before parsing.
 */
export function formatTime(value: string | undefined): string {
  if (!value) return "—"
  const trimmed = value.replace(/(\.\d{3})\d+/, "$1")
  const date = new Date(trimmed)
  if (Number.isNaN(date.getTime())) return value
  return `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`
}

export type TimelineState = "done" | "pending"

export interface TimelineStep {
  key: string
  label: string
  at: string | undefined
  state: TimelineState
  note?: string
}

/** The states a conversion went through, with their times, in order. */
export function conversionTimeline(conversion: Conversion): TimelineStep[] {
  const steps: TimelineStep[] = [{ key: "created", label: "Created", at: conversion.created_at, state: "done" }]
  switch (conversion.status) {
    case "CREATED":
      steps.push({
        key: "settlement",
        label: "Settlement",
        at: undefined,
        state: "pending",
        note: "Waiting to settle; a trader can still cancel it.",
      })
      break
    case "SETTLED":
      steps.push({ key: "settled", label: "Settled", at: conversion.settled_at, state: "done" })
      break
    case "CANCELLED":
      steps.push({ key: "cancelled", label: "Cancelled", at: conversion.cancelled_at, state: "done", note: "The source amount was refunded." })
      break
    default:
      steps.push({ key: "status", label: conversion.status, at: undefined, state: "done" })
  }
  if (conversion.updated_at) steps.push({ key: "updated", label: "Last updated", at: conversion.updated_at, state: "done" })
  return steps
}
