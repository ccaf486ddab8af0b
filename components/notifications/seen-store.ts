import type { NotificationEvent } from "@/lib/schemas/notifications"

/**
 * Which notifications this browser has already announced, shared by its tabs and kept
 * over reloads: one localStorage entry per person holds the poll cursor and the ids of
 * the events claimed. A tab claims an answer's events under a Web Lock (one tab at a
 * time, across tabs), so of two tabs polling at once only one announces an event.
 * Without localStorage (disabled, full) the tab still dedupes within itself.
 */

export interface SeenState {
  /** The last answer's cursor: the next poll's `since`. */
  cursor: string | null
  /** Event id → when it was claimed (ms). */
  seen: Record<string, number>
}

/** Longer than the server serves events (a day back), so a repeat is always recognised. */
export const SEEN_TTL_MS = 2 * 24 * 60 * 60 * 1000
export const SEEN_MAX = 500
export const CLAIM_LOCK = "console-notifications-claim"

export function storageKey(email: string): string {
  return `console.notifications.v1:${email.toLowerCase()}`
}

const memory = new Map<string, string>()

function readRaw(storage: Storage | null, key: string): string | null {
  try {
    if (storage) return storage.getItem(key)
  } catch {
    // Storage refused (privacy mode, disabled): the tab's own memory below.
  }
  return memory.get(key) ?? null
}

function writeRaw(storage: Storage | null, key: string, value: string): void {
  memory.set(key, value)
  try {
    storage?.setItem(key, value)
  } catch {
    // Full or refused: this tab still remembers what it announced.
  }
}

export function readState(storage: Storage | null, key: string): SeenState {
  const raw = readRaw(storage, key)
  if (!raw) return { cursor: null, seen: {} }
  try {
    const parsed = JSON.parse(raw) as Partial<SeenState>
    const cursor = typeof parsed.cursor === "string" ? parsed.cursor : null
    const seen: Record<string, number> = {}
    if (parsed.seen && typeof parsed.seen === "object") {
      for (const [id, at] of Object.entries(parsed.seen)) if (typeof at === "number") seen[id] = at
    }
    return { cursor, seen }
  } catch {
    return { cursor: null, seen: {} }
  }
}

/**
 * Keeps the events of an answer that no tab has claimed yet, marks them claimed and moves
 * the cursor forward (never back: another tab may have polled since). Synchronous: run it
 * under `withClaimLock`.
 */
export function claim(
  storage: Storage | null,
  key: string,
  page: { events: readonly NotificationEvent[]; cursor: string },
  now: number,
): NotificationEvent[] {
  const state = readState(storage, key)
  const fresh = page.events.filter((event) => state.seen[event.id] === undefined)
  for (const event of fresh) state.seen[event.id] = now
  const kept = Object.entries(state.seen)
    .filter(([, at]) => now - at < SEEN_TTL_MS)
    .sort(([, a], [, b]) => b - a)
    .slice(0, SEEN_MAX)
  const cursor = state.cursor && Date.parse(state.cursor) > Date.parse(page.cursor) ? state.cursor : page.cursor
  writeRaw(storage, key, JSON.stringify({ cursor, seen: Object.fromEntries(kept) } satisfies SeenState))
  return fresh
}

/** Runs `fn` while holding the browser-wide claim lock (Web Locks), or at once where there are none. */
export function withClaimLock<T>(fn: () => T, locks: LockManager | undefined = typeof navigator === "undefined" ? undefined : navigator.locks): Promise<T> {
  if (locks?.request) return locks.request(CLAIM_LOCK, () => fn())
  return Promise.resolve().then(fn)
}

/**
 * Whether a tab shows a claimed event as a toast: not on the record's own page, nor while a
 * view on this page follows that record or request live (the trade desk's result, the
 * conversion form's outcome, the approvals list). It stays claimed either way: the person
 * saw it there.
 */
export function shouldAnnounce(event: NotificationEvent, context: { pathname: string; shownLive: (id: string) => boolean }): boolean {
  if (context.pathname === event.href) return false
  return !context.shownLive(event.record_id)
}
