import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Staff } from "@/lib/auth/roles"
import { consoleEventHandler } from "@/lib/console/event-effects"
import { type EventReader, createEventReader } from "@/lib/console/event-reader"
import { createOrchestrationFollower } from "@/lib/console/followed-orchestrations"
import { pollNotifications } from "@/lib/console/notifications"
import { type ConsoleHarness, createConsoleHarness, placeConversion } from "@/test/console"
import { testDrivers } from "@/test/db"

describe.each(testDrivers())("an orchestration's record, followed through its events, on %s", (driver) => {
  let h: ConsoleHarness
  let profileId: string
  let reader: EventReader
  const me: Staff = { email: "trader-followed@example.com", role: "trader" }

  beforeAll(async () => {
    h = await createConsoleHarness({ driver, conversionsApi: "orchestrations" })
    profileId = (await h.upstream.listProfiles()).items[0]!.id
    await h.upstream.sandboxDeposit(profileId, { asset: "USD", amount: "1000.00" })
    reader = createEventReader({ db: h.db, id: "followed-reader", upstream: h.upstream, handler: consoleEventHandler(), solo: true })
  })
  afterAll(async () => {
    await reader?.stop()
    await h?.close()
  })

  it("while the reader covers it, the service is asked once per status change, not once per look; without it, every look asks", async () => {
    const placed = await placeConversion(h, me, { profile_id: profileId, amount: "5.00", source_asset: "USD", target_asset: "USDP", ref_id: randomUUID() })
    const id = placed.record.id
    let asked = 0
    const fetch = () => {
      asked++
      return h.upstream.getConversion(id)
    }
    const follower = createOrchestrationFollower({ db: h.db })
    await reader.read()
    for (let i = 0; i < 5; i++) expect((await follower.get(id, fetch, true)).status).toBe("PROCESSING")
    expect(asked).toBe(1)

    // Completed at the service; until the reader has read its event, the record stands.
    await h.sandbox.settleDue()
    expect((await h.upstream.getConversion(id)).status).toBe("COMPLETED")
    expect((await follower.get(id, fetch, true)).status).toBe("PROCESSING")
    expect(asked).toBe(1)

    // The event is processed: the next look asks once and carries the new status; a final record is kept.
    await reader.read()
    expect((await follower.get(id, fetch, true)).status).toBe("COMPLETED")
    for (let i = 0; i < 5; i++) expect((await follower.get(id, fetch, true)).status).toBe("COMPLETED")
    expect(asked).toBe(2)
    expect(follower.serviceReads()).toBe(2)

    // The reader not covering (off, or fallen behind): every look goes to the service, as before.
    for (let i = 0; i < 3; i++) await follower.get(id, fetch, false)
    expect(asked).toBe(5)
  })

  it("PENDING at the service is asked every time (no event comes when the service rejects one), and a person is told of the rejection", async () => {
    const waiter: Staff = { email: "trader-waiting@example.com", role: "trader" }
    const first = await pollNotifications(h, waiter, null)
    await h.setFaults({ orchestration_approval: true })
    try {
      const placed = await placeConversion(h, waiter, { profile_id: profileId, amount: "7.00", source_asset: "USD", target_asset: "USDP", ref_id: randomUUID() })
      expect(placed.record.status).toBe("PENDING")
      const id = placed.record.id
      let asked = 0
      const fetch = () => {
        asked++
        return h.upstream.getConversion(id)
      }
      const follower = createOrchestrationFollower({ db: h.db })
      await reader.read()
      for (let i = 0; i < 3; i++) expect((await follower.get(id, fetch, true)).status).toBe("PENDING")
      expect(asked).toBe(3)
      await h.decideOrchestration(id, "reject")
      await reader.read()
      expect((await follower.get(id, fetch, true)).status).toBe("REJECTED")
      // Final: kept.
      await follower.get(id, fetch, true)
      expect(asked).toBe(4)
      // With the reader covering orchestrations, the notification poll still asks about this one, and announces it.
      const told = await pollNotifications(h, waiter, new Date(first.cursor), { eventsCoverOrchestrations: true })
      expect(told.events.map((e) => [e.record_id, e.state])).toEqual([[id, "REJECTED"]])
    } finally {
      await h.setFaults({ orchestration_approval: false })
    }
  })

  it("a record kept while PROCESSING is asked again after recheckMs even with no event (a safety net)", async () => {
    const placed = await placeConversion(h, me, { profile_id: profileId, amount: "6.00", source_asset: "USD", target_asset: "USDP", ref_id: randomUUID() })
    const id = placed.record.id
    let t = Date.now()
    let asked = 0
    const fetch = () => {
      asked++
      return h.upstream.getConversion(id)
    }
    const follower = createOrchestrationFollower({ db: h.db, recheckMs: 30_000, now: () => t })
    await reader.read()
    await follower.get(id, fetch, true)
    await follower.get(id, fetch, true)
    expect(asked).toBe(1)
    t += 30_000
    await follower.get(id, fetch, true)
    expect(asked).toBe(2)
    await h.sandbox.settleDue()
  })
})
