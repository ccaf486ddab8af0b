// @vitest-environment jsdom
import { beforeEach, describe, expect, it, vi } from "vitest"
import { SEEN_MAX, SEEN_TTL_MS, claim, readState, shouldAnnounce, storageKey, withClaimLock } from "@/components/notifications/seen-store"
import type { NotificationEvent } from "@/lib/schemas/notifications"

const key = storageKey("Trader@Example.com")
const NOW = Date.UTC(2026, 2, 1, 12)

function event(id: string, extra: Partial<NotificationEvent> = {}): NotificationEvent {
  return {
    id: `execution:${id}:SETTLED`,
    kind: "execution",
    state: "SETTLED",
    at: "2026-03-01T12:00:00.000Z",
    record_id: id,
    title: "Execution settled",
    detail: `Execution ${id} is SETTLED.`,
    href: `/executions/p1/${id}`,
    ...extra,
  }
}
const page = (events: NotificationEvent[], cursor = "2026-03-01T11:59:00.000Z") => ({ events, cursor })
const ids = (events: NotificationEvent[]) => events.map((e) => e.record_id)

beforeEach(() => localStorage.clear())

describe("claiming notifications across tabs and reloads", () => {
  it("two tabs sharing the browser's storage announce each event once, whichever polls first", async () => {
    // The same answer reaches both tabs (the cursor overlaps), one with an extra event.
    const [tabA, tabB] = await Promise.all([
      withClaimLock(() => claim(localStorage, key, page([event("a"), event("b")]), NOW)),
      withClaimLock(() => claim(localStorage, key, page([event("a"), event("b"), event("c")]), NOW)),
    ])
    expect([...ids(tabA), ...ids(tabB)].sort()).toEqual(["a", "b", "c"])
  })

  it("a reload (the state read back from storage) does not announce again, and polls from the stored cursor", () => {
    claim(localStorage, key, page([event("a")], "2026-03-01T12:00:00.000Z"), NOW)
    expect(readState(localStorage, key).cursor).toBe("2026-03-01T12:00:00.000Z")
    expect(claim(localStorage, key, page([event("a")]), NOW + 2_500)).toEqual([])
    // A new state of the same record is a new event.
    expect(ids(claim(localStorage, key, page([event("a", { id: "execution:a:CANCELLED" })]), NOW))).toEqual(["a"])
  })

  it("the cursor only moves forward: a slower tab's older answer does not move it back", () => {
    claim(localStorage, key, page([], "2026-03-01T12:00:05.000Z"), NOW)
    claim(localStorage, key, page([], "2026-03-01T12:00:01.000Z"), NOW)
    expect(readState(localStorage, key).cursor).toBe("2026-03-01T12:00:05.000Z")
  })

  it("each person has their own entry", () => {
    claim(localStorage, key, page([event("a")]), NOW)
    expect(ids(claim(localStorage, storageKey("other@example.com"), page([event("a")]), NOW))).toEqual(["a"])
    expect(storageKey("TRADER@example.com")).toBe(key)
  })

  it("forgets ids after the TTL and keeps at most SEEN_MAX, newest first", () => {
    claim(localStorage, key, page([event("old")]), NOW - SEEN_TTL_MS)
    claim(localStorage, key, page(Array.from({ length: SEEN_MAX + 5 }, (_, i) => event(`n${i}`))), NOW)
    const seen = readState(localStorage, key).seen
    expect(Object.keys(seen)).toHaveLength(SEEN_MAX)
    expect(seen["execution:old:SETTLED"]).toBeUndefined()
  })

  it("unreadable storage starts afresh; storage that refuses writes still dedupes within the tab", () => {
    localStorage.setItem(key, "{not json")
    expect(readState(localStorage, key)).toEqual({ cursor: null, seen: {} })
    const refusing = {
      getItem: () => {
        throw new Error("SecurityError")
      },
      setItem: () => {
        throw new Error("QuotaExceededError")
      },
    } as unknown as Storage
    const other = storageKey("refused@example.com")
    expect(ids(claim(refusing, other, page([event("x")]), NOW))).toEqual(["x"])
    expect(claim(refusing, other, page([event("x")]), NOW)).toEqual([])
  })

  it("takes the browser-wide Web Lock when there is one", async () => {
    const request = vi.fn((_name: string, fn: () => unknown) => Promise.resolve(fn()))
    const result = await withClaimLock(() => 42, { request } as unknown as LockManager)
    expect(result).toBe(42)
    expect(request).toHaveBeenCalledWith("console-notifications-claim", expect.any(Function))
  })
})

describe("where a claimed event is shown", () => {
  const a = event("a")
  it("not on the record's own page, nor while a view on the page follows it live; everywhere else yes", () => {
    expect(shouldAnnounce(a, { pathname: a.href, shownLive: () => false })).toBe(false)
    expect(shouldAnnounce(a, { pathname: "/trade", shownLive: (id) => id === "a" })).toBe(false)
    expect(shouldAnnounce(a, { pathname: "/trade", shownLive: () => false })).toBe(true)
    expect(shouldAnnounce(a, { pathname: "/executions", shownLive: (id) => id === "b" })).toBe(true)
  })
})
