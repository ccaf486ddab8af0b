import type { Conversion } from "@/lib/schemas/records"

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
