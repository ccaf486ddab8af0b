// @vitest-environment jsdom
import { act, createElement } from "react"
import { type Root, createRoot } from "react-dom/client"
import { afterEach, describe, expect, it, vi } from "vitest"
import { z } from "zod"
import { ApiNetworkError, ApiProblemError } from "@/lib/queries/api"
import { pendingStore } from "@/lib/queries/pending-submission"
import {
  type EarlierSubmission,
  type KeptSubmission,
  type Submission,
  type SubmissionOptions,
  classifyFailure,
  existingRecord,
  newRefId,
  useSubmission,
} from "@/lib/queries/submission"
import { PROBLEM_TYPE_BASE } from "@/lib/schemas/problem"

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

const plain = (status: number) => new ApiProblemError({ type: "about:blank", title: "x", status })
const named = (slug: string, status: number, meta: Record<string, unknown> = {}) =>
  new ApiProblemError({ type: `${PROBLEM_TYPE_BASE}${slug}`, title: slug, status, meta })

type Body = { ref_id: string; amount: string }
type Rec = { id: string; ref_id: string }
const recordSchema = z.object({ id: z.string(), ref_id: z.string() })
type Kept = KeptSubmission<Body> & { values: { amount: string } }
const KEY = "test.pending"
const kept = pendingStore<Kept>(
  KEY,
  z.object({
    version: z.literal(1),
    refId: z.string(),
    body: z.object({ ref_id: z.string(), amount: z.string() }),
    values: z.object({ amount: z.string() }),
    sent: z.boolean(),
    savedAt: z.string(),
  }),
)
/** What sessionStorage holds for the test form now. */
const stored = () => kept.load(window.sessionStorage, Date.now())

afterEach(() => vi.unstubAllGlobals())

describe("newRefId", () => {
  it("is a fresh version 4 UUID on a secure origin", () => {
    const ids = new Set(Array.from({ length: 50 }, () => newRefId()))
    expect(ids.size).toBe(50)
    for (const id of ids) expect(id).toMatch(UUID_V4)
  })

  it("is still one where crypto.randomUUID is missing (a console opened over plain http)", () => {
    const secure = globalThis.crypto
    const getRandomValues = vi.fn(<T extends Uint8Array>(array: T) => secure.getRandomValues(array))
    vi.stubGlobal("crypto", { getRandomValues })
    expect("randomUUID" in globalThis.crypto).toBe(false)
    const ids = new Set(Array.from({ length: 50 }, () => newRefId()))
    expect(ids.size).toBe(50)
    for (const id of ids) expect(id).toMatch(UUID_V4)
    expect(getRandomValues).toHaveBeenCalledTimes(50)
  })
})

describe("classifyFailure", () => {
  it("408 leaves the outcome unknown: the request may have reached the service before it timed out", () => {
    expect(classifyFailure(plain(408))).toBe("unknown")
  })

  it("no answer, an unreadable one, 5xx, 429 and 401 leave it unknown too", () => {
    for (const error of [new ApiNetworkError(new TypeError("fetch failed")), new Error("did not parse"), plain(500), plain(502), plain(504), plain(429), plain(401)]) {
      expect(classifyFailure(error)).toBe("unknown")
    }
  })

  it("other 4xx are refusals; a 409 is the ref_id taken, by this record or another request", () => {
    for (const error of [plain(400), plain(403), plain(404), plain(413), plain(422), named("expired", 403), named("insufficient-funds", 403)]) {
      expect(classifyFailure(error)).toBe("refused")
    }
    expect(classifyFailure(named("already-exists", 409))).toBe("already-exists")
    expect(classifyFailure(plain(409))).toBe("conflict")
  })
})

describe("existingRecord", () => {
  it("reads a 409's meta.existing with the record's schema, and nothing else", () => {
    const record = { id: "r1", ref_id: "ref-1" }
    expect(existingRecord(named("already-exists", 409, { existing: record }), recordSchema)).toEqual(record)
    expect(existingRecord(named("already-exists", 409, { existing: { id: 1 } }), recordSchema)).toBeNull()
    expect(existingRecord(new ApiProblemError({ type: "about:blank", title: "x", status: 500, meta: { existing: record } }), recordSchema)).toBeNull()
    expect(existingRecord(new Error("x"), recordSchema)).toBeNull()
  })
})

// A minimal renderHook: the hook inside a component rendered into jsdom.
;(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true
let root: Root | null = null
afterEach(() => {
  act(() => root?.unmount())
  root = null
})

function renderSubmission(options: SubmissionOptions<Body, Rec, Kept>): { current: Submission<Body, Rec, Kept> } {
  const result = {} as { current: Submission<Body, Rec, Kept> }
  function Probe() {
    result.current = useSubmission(options)
    return null
  }
  root = createRoot(document.createElement("div"))
  act(() => root?.render(createElement(Probe)))
  return result
}

/** A send whose answers the test gives one at a time. */
function controlledSend() {
  const pending: { resolve: (r: Rec) => void; reject: (e: unknown) => void }[] = []
  const send = vi.fn((body: Body) => new Promise<Rec>((resolve, reject) => pending.push({ resolve, reject })).then((r) => ({ ...r, ref_id: body.ref_id })))
  return { send, answer: () => pending.shift()! }
}

/** Runs `fn` (an answer arriving) and lets the hook's promise chain settle. */
async function answered(fn: () => unknown): Promise<void> {
  await act(async () => {
    fn()
    await new Promise((resolve) => setTimeout(resolve, 0))
  })
}

const neverLooked = () => Promise.reject(new Error("the look-up was not expected"))

describe("useSubmission", () => {
  it("sends a double click once, and the next submission gets a new ref_id", async () => {
    const { send, answer } = controlledSend()
    const hook = renderSubmission({ send, lookup: neverLooked, existing: recordSchema })
    const first = hook.current.refId
    expect(first).toMatch(UUID_V4)
    const body = { ref_id: first, amount: "1" }
    act(() => {
      hook.current.submit(body)
      hook.current.submit(body)
    })
    expect(send).toHaveBeenCalledTimes(1)
    expect(hook.current.sending).toBe(true)
    await answered(() => answer().resolve({ id: "r1", ref_id: "" }))
    expect(hook.current.state).toMatchObject({ kind: "placed", via: "created", record: { id: "r1", ref_id: first } })
    expect(hook.current.refId).not.toBe(first)
  })

  it("after a 408 keeps the ref_id, re-sends only when asked, with the same body", async () => {
    const { send, answer } = controlledSend()
    const lookup = vi.fn(neverLooked)
    const hook = renderSubmission({ send, lookup, existing: recordSchema })
    const refId = hook.current.refId
    const body = { ref_id: refId, amount: "2" }
    act(() => hook.current.submit(body))
    await answered(() => answer().reject(plain(408)))
    expect(hook.current.state).toMatchObject({ kind: "unknown", body, resumed: false })
    expect(hook.current.refId).toBe(refId)
    expect(send).toHaveBeenCalledTimes(1)
    expect(lookup).not.toHaveBeenCalled()

    act(() => hook.current.retry())
    expect(send).toHaveBeenCalledTimes(2)
    expect(send.mock.calls[1]?.[0]).toBe(body)
    await answered(() => answer().resolve({ id: "r2", ref_id: "" }))
    expect(hook.current.state).toMatchObject({ kind: "placed", record: { id: "r2", ref_id: refId } })
  })

  it("asks what became of an unknown outcome: placed, not placed (a new ref_id), or cannot tell", async () => {
    const { send, answer } = controlledSend()
    const answers: EarlierSubmission<Rec>[] = [
      { placed: "unknown", error: plain(502) },
      { placed: false },
    ]
    const lookup = vi.fn((body: Body) => Promise.resolve(answers.shift() ?? { placed: true as const, record: { id: "r3", ref_id: body.ref_id } }))
    const hook = renderSubmission({ send, lookup, existing: recordSchema })
    const refId = hook.current.refId
    act(() => hook.current.submit({ ref_id: refId, amount: "3" }))
    await answered(() => answer().reject(new ApiNetworkError(new TypeError("offline"))))

    await answered(() => hook.current.check())
    expect(hook.current.state).toMatchObject({ kind: "unknown", checkError: plain(502) })
    expect(hook.current.refId).toBe(refId)

    await answered(() => hook.current.check())
    expect(hook.current.state).toEqual({ kind: "open" })
    expect(hook.current.refId).not.toBe(refId)
    expect(lookup.mock.calls.map(([body]) => body.ref_id)).toEqual([refId, refId])
    expect(send).toHaveBeenCalledTimes(1)

    const next = hook.current.refId
    act(() => hook.current.submit({ ref_id: next, amount: "3" }))
    await answered(() => answer().reject(plain(503)))
    await answered(() => hook.current.check())
    expect(hook.current.state).toMatchObject({ kind: "placed", via: "placed-earlier", record: { id: "r3", ref_id: next } })
  })

  it("a refusal ends the submission; a 409 with the record shows that record", async () => {
    const { send, answer } = controlledSend()
    const onAnswer = vi.fn()
    const hook = renderSubmission({ send, lookup: neverLooked, existing: recordSchema, onAnswer })
    const first = hook.current.refId
    act(() => hook.current.submit({ ref_id: first, amount: "4" }))
    const refusal = named("insufficient-funds", 403)
    await answered(() => answer().reject(refusal))
    expect(hook.current.state).toMatchObject({ kind: "refused", error: refusal, conflict: false })
    expect(onAnswer).toHaveBeenLastCalledWith(expect.objectContaining({ kind: "refused" }))
    const second = hook.current.refId
    expect(second).not.toBe(first)

    act(() => hook.current.submit({ ref_id: second, amount: "4" }))
    const existing = { id: "r4", ref_id: second }
    await answered(() => answer().reject(named("already-exists", 409, { existing })))
    expect(hook.current.state).toMatchObject({ kind: "placed", via: "existing", record: existing })
  })

  it("a submission sent before a reload is asked about at once and never sent again on its own", async () => {
    const send = vi.fn(() => Promise.reject(new Error("must not send")))
    const body = { ref_id: "0b6c4a52-3d8e-4f4e-9d55-0a1c2b3d4e5f", amount: "5" }
    const sentAt = new Date("2026-01-31T12:00:00Z")
    let found!: (answer: EarlierSubmission<Rec>) => void
    const lookup = vi.fn(() => new Promise<EarlierSubmission<Rec>>((resolve) => (found = resolve)))
    const resume = { version: 1 as const, refId: body.ref_id, body, values: { amount: "5" }, sent: true, savedAt: sentAt.toISOString() }
    const hook = renderSubmission({ send, lookup, existing: recordSchema, persist: { store: kept, resume } })
    expect(hook.current.refId).toBe(body.ref_id)
    expect(hook.current.state).toMatchObject({ kind: "unknown", body, resumed: true })
    expect(hook.current.checking).toBe(true)
    expect(lookup).toHaveBeenCalledExactlyOnceWith(body, sentAt)
    await answered(() => found({ placed: "unknown", error: new Error("not listed yet") }))
    expect(hook.current.state).toMatchObject({ kind: "unknown", resumed: true })
    expect(hook.current.refId).toBe(body.ref_id)
    expect(send).not.toHaveBeenCalled()
  })

  describe("kept in sessionStorage (persist)", () => {
    afterEach(() => window.sessionStorage.clear())
    const values = { amount: "6" }

    it("is kept at the confirm step, kept as sent before it leaves, and dropped once placed", async () => {
      const { send, answer } = controlledSend()
      const hook = renderSubmission({ send, lookup: neverLooked, existing: recordSchema, persist: { store: kept, resume: null } })
      const body = { ref_id: hook.current.refId, amount: "6" }
      act(() => hook.current.keep(body, { values }))
      expect(stored()).toMatchObject({ refId: body.ref_id, body, values, sent: false })
      act(() => hook.current.submit(body))
      expect(send).toHaveBeenCalledTimes(1)
      expect(stored()).toMatchObject({ refId: body.ref_id, body, values, sent: true })
      await answered(() => answer().resolve({ id: "r6", ref_id: "" }))
      expect(hook.current.state).toMatchObject({ kind: "placed" })
      expect(stored()).toBeNull()
    })

    it("stays kept while the outcome is unknown, and is dropped by a refusal or by the person", async () => {
      const { send, answer } = controlledSend()
      const hook = renderSubmission({ send, lookup: neverLooked, existing: recordSchema, persist: { store: kept, resume: null } })
      const body = { ref_id: hook.current.refId, amount: "7" }
      act(() => hook.current.keep(body, { values }))
      act(() => hook.current.submit(body))
      await answered(() => answer().reject(plain(504)))
      expect(stored()).toMatchObject({ refId: body.ref_id, sent: true })
      act(() => hook.current.retry())
      await answered(() => answer().reject(named("insufficient-funds", 403)))
      expect(hook.current.state).toMatchObject({ kind: "refused" })
      expect(stored()).toBeNull()

      const next = { ref_id: hook.current.refId, amount: "7" }
      act(() => hook.current.keep(next, { values }))
      expect(stored()).toMatchObject({ refId: next.ref_id })
      act(() => hook.current.drop())
      expect(stored()).toBeNull()
    })

    it("a look-up that finds nothing placed drops it, unless it was resumed after a reload (the form offers that one again)", async () => {
      const { send, answer } = controlledSend()
      const lookup = vi.fn(() => Promise.resolve<EarlierSubmission<Rec>>({ placed: false }))
      const hook = renderSubmission({ send, lookup, existing: recordSchema, persist: { store: kept, resume: null } })
      const body = { ref_id: hook.current.refId, amount: "8" }
      act(() => hook.current.keep(body, { values }))
      act(() => hook.current.submit(body))
      await answered(() => answer().reject(plain(502)))
      await answered(() => hook.current.check())
      expect(hook.current.state).toEqual({ kind: "open" })
      expect(stored()).toBeNull()
      act(() => root?.unmount())

      const resume = { version: 1 as const, refId: body.ref_id, body, values, sent: true, savedAt: new Date().toISOString() }
      kept.save(window.sessionStorage, resume)
      const resumed = renderSubmission({ send, lookup, existing: recordSchema, persist: { store: kept, resume } })
      await answered(() => undefined)
      expect(lookup).toHaveBeenCalledTimes(2)
      // The console said so: the form may offer "Place it now".
      expect(resumed.current.state).toEqual({ kind: "open", notPlaced: true })
      expect(stored()).toMatchObject({ refId: body.ref_id, sent: true })
      // Offered again, it is sent with its own ref_id, only on a click.
      expect(send).toHaveBeenCalledTimes(1)
      act(() => resumed.current.submit(body))
      expect(send).toHaveBeenCalledTimes(2)
      expect(send.mock.calls[1]?.[0]).toBe(body)
    })

    it("refuses to send what was never kept, so nothing leaves that a reload could not find", () => {
      const send = vi.fn(() => Promise.reject(new Error("must not send")))
      const hook = renderSubmission({ send, lookup: neverLooked, existing: recordSchema, persist: { store: kept, resume: null } })
      expect(() => hook.current.submit({ ref_id: hook.current.refId, amount: "9" })).toThrow(/keep/)
      expect(send).not.toHaveBeenCalled()
    })
  })

  it("shows a refusal's fields under the form's own fields (fieldErrors), and names the rest", async () => {
    const { send, answer } = controlledSend()
    const setError = vi.fn()
    const fieldErrors = { setError, fieldOf: (field: string) => (field === "amount" ? ("amount" as const) : null), message: (field: string, rule: string) => `Amount ${rule}` }
    const hook = renderSubmission({ send, lookup: neverLooked, existing: recordSchema, fieldErrors })
    act(() => hook.current.submit({ ref_id: hook.current.refId, amount: "0" }))
    await answered(() => answer().reject(new ApiProblemError({ type: "about:blank", title: "Bad Request", status: 400, meta: { fields: { amount: "must be more than 0", ref_id: "is required" } } })))
    expect(setError).toHaveBeenCalledExactlyOnceWith("amount", { type: "server", message: "Amount must be more than 0" })
    expect(hook.current.showFieldRules({ amount: "at most 2 decimals", desk: "unknown" }, "schema")).toEqual(["desk: unknown"])
    expect(setError).toHaveBeenLastCalledWith("amount", { type: "schema", message: "Amount at most 2 decimals" })
  })
})
