import { describe, expect, it } from "vitest"
import { attemptsNote, recoveredNote } from "@/components/intents/attempts"

describe("attemptsNote", () => {
  it("says nothing about a send that went through the first time", () => {
    expect(attemptsNote({ state: "SUCCEEDED", attempts: 1 })).toBeNull()
  })
  it("says a succeeded intent recovered after its retries", () => {
    expect(attemptsNote({ state: "SUCCEEDED", attempts: 2 })).toBe("recovered after 2 attempts")
  })
  it("counts the attempts of one that has not succeeded, without claiming a recovery", () => {
    expect(attemptsNote({ state: "UNKNOWN", attempts: 5 })).toBe("5 attempts")
  })
})

describe("recoveredNote", () => {
  it("reads the intent that placed the record", () => {
    const intents = [
      { operation: "cancel_conversion", state: "SUCCEEDED", attempts: 3 },
      { operation: "create_conversion", state: "SUCCEEDED", attempts: 2 },
    ]
    expect(recoveredNote(intents)).toBe("recovered after 2 attempts")
  })
  it("is silent for a clean placement, an unresolved one, or a record another client placed", () => {
    expect(recoveredNote([{ operation: "create_execution", state: "SUCCEEDED", attempts: 1 }])).toBeNull()
    expect(recoveredNote([{ operation: "create_execution", state: "UNKNOWN", attempts: 4 }])).toBeNull()
    expect(recoveredNote([])).toBeNull()
  })
})
