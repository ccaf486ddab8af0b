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
    // The Orchestrations API's statuses: it has no cancel, and says when it finished only by updated_at.
    case "PROCESSING":
      steps.push({
        key: "processing",
        label: "Processing",
        at: undefined,
        state: "pending",
        note: "The service is moving the funds; an orchestration cannot be cancelled.",
      })
      break
    case "COMPLETED":
      steps.push({ key: "completed", label: "Completed", at: conversion.updated_at, state: "done" })
      break
    case "FAILED":
      steps.push({
        key: "failed",
        label: "Failed",
        at: conversion.updated_at,
        state: "done",
        note: conversion.fail_reason?.detail ?? "The service gave no reason.",
      })
      break
    default:
      steps.push({ key: "status", label: conversion.status, at: undefined, state: "done" })
  }
  if (conversion.updated_at) steps.push({ key: "updated", label: "Last updated", at: conversion.updated_at, state: "done" })
  return steps
}
