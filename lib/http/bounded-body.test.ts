import { describe, expect, it } from "vitest"
import { BodyTooLarge, readBoundedText, withBoundedBody } from "@/lib/http/bounded-body"
import { LONE_SURROGATE_RULE, RESERVED_NAME_RULE, illFormedField } from "@/lib/http/well-formed"

function streamOf(chunks: number, size: number, counter: { pulled: number }): ReadableStream<Uint8Array> {
  let sent = 0
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === chunks) return controller.close()
      sent++
      counter.pulled += size
      controller.enqueue(new Uint8Array(size).fill(120))
    },
  }, { highWaterMark: 0 })
}

function post(body: BodyInit, headers: Record<string, string> = {}): Request {
  return new Request("http://localhost/x", { method: "POST", body, headers, duplex: "half" } as RequestInit)
}

describe("bounded bodies", () => {
  it("refuses a Content-Length over the limit before reading a byte", async () => {
    const counter = { pulled: 0 }
    await expect(readBoundedText(post(streamOf(100, 1024, counter), { "content-length": String(100 * 1024) }), 1024)).rejects.toBeInstanceOf(BodyTooLarge)
    expect(counter.pulled).toBe(0)
  })

  it("cuts a body without a length off once it passes the limit, pulling no further", async () => {
    const counter = { pulled: 0 }
    await expect(readBoundedText(post(streamOf(100_000, 1024, counter)), 8 * 1024)).rejects.toThrow("The body must be at most 8 KiB.")
    expect(counter.pulled).toBeLessThanOrEqual(9 * 1024)
  })

  it("reads a body at the limit exactly, and hands it on unchanged", async () => {
    expect(await readBoundedText(post("x".repeat(1024)), 1024)).toBe("x".repeat(1024))
    const again = await withBoundedBody(post("a=1&b=2", { "content-type": "application/x-www-form-urlencoded" }), 1024)
    expect(await again.text()).toBe("a=1&b=2")
    expect(again.headers.get("content-type")).toBe("application/x-www-form-urlencoded")
  })
})

describe("ill-formed bodies", () => {
  const parse = (json: string) => JSON.parse(json) as unknown
  const fieldWithLoneSurrogate = (value: unknown) => {
    const bad = illFormedField(value)
    if (bad) expect(bad.rule).toBe(LONE_SURROGATE_RULE)
    return bad?.field ?? null
  }

  it("names the first field whose name or value has no UTF-8 form", () => {
    expect(fieldWithLoneSurrogate(parse('{"metadata":{"k":"\\ud800"}}'))).toBe("metadata.k")
    expect(fieldWithLoneSurrogate(parse('{"ref_id":"a\\udfffb"}'))).toBe("ref_id")
    expect(fieldWithLoneSurrogate(parse('{"rules":[{"x":1},{"s":"\\udc00"}]}'))).toBe("rules[1].s")
    expect(fieldWithLoneSurrogate(parse('{"metadata":{"\\ud800":"v"}}'))).toBe("metadata.\ufffd")
    expect(fieldWithLoneSurrogate(parse('"\\ud800"'))).toBe("body")
    expect(fieldWithLoneSurrogate(parse('{"emoji":"😀","pair":"\\ud83d\\ude00"}'))).toBeNull()
  })

  it("names a field called __proto__, which a schema would drop without a word, and nothing else", () => {
    expect(illFormedField(parse('{"role_limits":{"trader":{"per_order":{"__proto__":"1.00"}}}}'))).toEqual({
      field: "role_limits.trader.per_order.__proto__",
      rule: RESERVED_NAME_RULE,
    })
    expect(illFormedField(parse('{"items":[{"a":1},{"__proto__":{}}]}'))?.field).toBe("items[1].__proto__")
    expect(illFormedField(parse('{"metadata":{"proto":"x","constructor":"y","__proto":"z"}}'))).toBeNull()
  })
})
