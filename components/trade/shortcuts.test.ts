import { describe, expect, it } from "vitest"
import { deskKeyOf } from "@/components/trade/shortcuts"

const press = (key: string, extra: Partial<KeyboardEvent> = {}) =>
  deskKeyOf({ key, ctrlKey: false, metaKey: false, altKey: false, target: null, defaultPrevented: false, ...extra })

describe("deskKeyOf", () => {
  it("reads B and S as the sides, arrows and digits as markets, ? as the list", () => {
    expect(press("b")).toEqual({ kind: "side", side: "BUY" })
    expect(press("S")).toEqual({ kind: "side", side: "SELL" })
    expect(press("ArrowDown")).toEqual({ kind: "move", by: 1 })
    expect(press("ArrowUp")).toEqual({ kind: "move", by: -1 })
    expect(press("1")).toEqual({ kind: "pick", index: 0 })
    expect(press("9")).toEqual({ kind: "pick", index: 8 })
    expect(press("?")).toEqual({ kind: "help" })
  })

  it("leaves everything else, and any key with a modifier, to the browser", () => {
    expect(press("0")).toBeNull()
    expect(press("x")).toBeNull()
    expect(press("Enter")).toBeNull()
    expect(press("b", { ctrlKey: true })).toBeNull()
    expect(press("s", { metaKey: true })).toBeNull()
    expect(press("1", { altKey: true })).toBeNull()
    expect(press("b", { defaultPrevented: true })).toBeNull()
  })
})
