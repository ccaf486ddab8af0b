"use client"

import { memo } from "react"
import { useRemainingSeconds } from "@/components/trade/clock"
import { cn } from "@/components/ui/cn"

/** Seconds left on a held quote; the only part of the page that ticks. */
export const Countdown = memo(function Countdown({ expiresAt, className }: { expiresAt: string; className?: string }) {
  const seconds = useRemainingSeconds(expiresAt)
  return (
    <span
      role="timer"
      data-testid="countdown"
      data-seconds={seconds}
      className={cn("tabular", seconds === 0 ? "font-semibold text-red-700" : seconds <= 5 ? "text-amber-800" : "text-slate-700", className)}
    >
      {seconds === 0 ? "Expired" : `${seconds} s left`}
    </span>
  )
})
