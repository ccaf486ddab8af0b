import { describe, expect, it } from "vitest"
import { channelBodySchema, markReadSchema, preferencesBodySchema } from "@/lib/schemas/notify"

function fieldsOf(result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }): Record<string, string> {
  return Object.fromEntries((result.error?.issues ?? []).map((i) => [i.path.join("."), i.message]))
}

describe("team channels and inbox bodies", () => {
  const chat = { name: "Treasury", type: "chat", url: "https://hooks.example.com/services/T/B/x", kinds: ["approval_waiting"] }

  it("a chat channel needs a name, an http(s) URL and at least one known kind", () => {
    expect(channelBodySchema.safeParse(chat).success).toBe(true)
    expect(fieldsOf(channelBodySchema.safeParse({ ...chat, name: " ", url: "ftp://x", kinds: [] }))).toEqual({
      name: "give the channel a name",
      url: "must be an http(s) URL",
      kinds: "choose at least one kind",
    })
    expect(channelBodySchema.safeParse({ ...chat, kinds: ["everything"] }).success).toBe(false)
  })

  it("a webhook channel needs a Standard Webhooks secret (whsec_ and at least 24 bytes of base64)", () => {
    const hook = { ...chat, type: "webhook" }
    expect(fieldsOf(channelBodySchema.safeParse(hook))).toEqual({ secret: "a webhook channel needs a signing secret" })
    expect(fieldsOf(channelBodySchema.safeParse({ ...hook, secret: "whsec_short" }))).toEqual({ secret: "must be whsec_ followed by at least 24 bytes of base64" })
    expect(channelBodySchema.safeParse({ ...hook, secret: `whsec_${Buffer.alloc(24, 7).toString("base64")}` }).success).toBe(true)
  })

  it("mark read takes notification ids only; preferences name known kinds", () => {
    expect(fieldsOf(markReadSchema.safeParse({ ids: ["not-an-id"] }))).toEqual({ "ids.0": "each must be a notification id" })
    expect(markReadSchema.parse({})).toEqual({ read: true })
    expect(preferencesBodySchema.safeParse({ items: [{ kind: "nope", console: true, email: true }] }).success).toBe(false)
  })
})
