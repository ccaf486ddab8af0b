"use client"

import { useSyncExternalStore } from "react"

/**
 * Milliseconds since the epoch of an RFC 3339 time. The service writes from none to nine
 * fractional digits; the browser's Date parser is only guaranteed to read three.
 */
export function instantMs(value: string): number {
  const trimmed = value.replace(/(\.\d{3})\d+/, "$1")
  return Date.parse(trimmed)
}

/** Whole seconds left until `expiresAt` (rounded up; 0 once it has passed). */
export function remainingSeconds(expiresAt: string, nowMs: number): number {
  const left = instantMs(expiresAt) - nowMs
  return Number.isNaN(left) || left <= 0 ? 0 : Math.ceil(left / 1000)
}

// One shared timer for every countdown on the page, running only while one is mounted.
const TICK_MS = 200
const listeners = new Set<() => void>()
let timer: ReturnType<typeof setInterval> | null = null

function subscribe(listener: () => void): () => void {
  listeners.add(listener)
  timer ??= setInterval(() => {
    for (const l of listeners) l()
  }, TICK_MS)
  return () => {
    listeners.delete(listener)
    if (listeners.size === 0 && timer !== null) {
      clearInterval(timer)
      timer = null
    }
  }
}

/**
 * Seconds left until `expiresAt`, live. The component re-renders only when the number
 * changes (once a second), and only the component that asks: keep it small.
 */
export function useRemainingSeconds(expiresAt: string): number {
  return useSyncExternalStore(
    subscribe,
    () => remainingSeconds(expiresAt, Date.now()),
    () => remainingSeconds(expiresAt, Date.now()),
  )
}

/** True once `expiresAt` has passed; re-renders its caller once, at that moment. */
export function useExpired(expiresAt: string): boolean {
  return useSyncExternalStore(
    subscribe,
    () => remainingSeconds(expiresAt, Date.now()) === 0,
    () => remainingSeconds(expiresAt, Date.now()) === 0,
  )
}
