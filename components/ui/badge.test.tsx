import { renderToStaticMarkup } from "react-dom/server"
import { describe, expect, it } from "vitest"
import { StatusBadge } from "@/components/ui/badge"
import { isTerminalStatus } from "@/lib/schemas/constants"

describe("StatusBadge", () => {
  it("says a conversion PENDING waits for approval at the service, and REJECTED moved nothing", () => {
    const pending = renderToStaticMarkup(<StatusBadge status="PENDING" of="conversion" />)
    expect(pending).toContain("waiting for approval at the service")
    expect(pending).toContain("amber")
    const rejected = renderToStaticMarkup(<StatusBadge status="REJECTED" of="conversion" />)
    expect(rejected).toContain("rejected at the service, nothing moved")
    expect(rejected).toContain("red")
  })

  it("never says 'at the service' of the console's own PENDING (an intent or a request) or of a status that needs no note", () => {
    expect(renderToStaticMarkup(<StatusBadge status="PENDING" />)).not.toContain("at the service")
    expect(renderToStaticMarkup(<StatusBadge status="PROCESSING" of="conversion" />)).not.toContain("status-note")
  })
})

describe("isTerminalStatus", () => {
  it("stops following an orchestration the service rejected, and keeps following one it has yet to approve", () => {
    expect(isTerminalStatus("REJECTED")).toBe(true)
    expect(isTerminalStatus("PENDING")).toBe(false)
    expect(isTerminalStatus("PROCESSING")).toBe(false)
  })
})
