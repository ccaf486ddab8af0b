import "server-only"
import { z } from "zod"
import { badRequest } from "@/lib/sandbox/problems"
import { dateTimeFilterSchema, orderSchema, pagingShape } from "@/lib/schemas/paging"
import { wireProfile } from "@/lib/sandbox/format"
import { listBalances } from "@/lib/sandbox/ledger"
import type { ProfileListQuery } from "@/lib/sandbox/profiles"
import { type Middleware, type SandboxServices, json, router } from "@/lib/sandbox/routes/context"
import { listParam, parseOrThrow, queryFor } from "@/lib/sandbox/validation"

const CREATED_AT_OPS = ["lt", "lte", "eq", "gte", "gt"] as const
const profileListQuerySchema = z.strictObject({
  ...pagingShape,
  order: orderSchema.optional(),
  nickname: z.string().max(100).optional(),
  ...Object.fromEntries(CREATED_AT_OPS.map((op) => [`created_at.${op}`, dateTimeFilterSchema.optional()])),
})

const ASSET = /^[A-Z0-9]{2,12}$/

/** /sandbox/v2/profiles: profiles and their balances. */
export function profileRoutes(s: SandboxServices, m: Middleware) {
  const read = m.scope("funding:read_profile")
  return (
    router()
      // GET /sandbox/v2/profiles - the account's profiles
      .get("/", read, m.fault("list"), async (c) => {
        const url = new URL(c.req.url)
        const raw = queryFor(url, Object.keys(profileListQuerySchema.shape))
        const query = parseOrThrow(profileListQuerySchema, raw) as ProfileListQuery
        const ids = listParam(url, "ids")
        if (ids.length > 0) query.ids = ids
        return json(c, await s.profiles.list(query))
      })
      // GET /sandbox/v2/profiles/{profile_id} - one profile ("default" names the default profile)
      .get("/:profileId", read, m.fault("get"), async (c) => json(c, wireProfile(await s.profiles.require(c.req.param("profileId")))))
      // GET /sandbox/v2/profiles/{profile_id}/balances - balances, optionally only `assets`
      .get("/:profileId/balances", read, m.fault("list"), async (c) => {
        const profile = await s.profiles.require(c.req.param("profileId"))
        const assets = listParam(new URL(c.req.url), "assets")
        const malformed = assets.filter((a) => !ASSET.test(a))
        if (malformed.length > 0) throw badRequest({ assets: `not an asset: ${malformed.join(", ")}` })
        return json(c, { items: await listBalances(s.db, profile.id, assets) })
      })
      // GET /sandbox/v2/profiles/{profile_id}/balances/{asset} - one balance
      .get("/:profileId/balances/:asset", read, m.fault("get"), async (c) => {
        const profile = await s.profiles.require(c.req.param("profileId"))
        const asset = c.req.param("asset")
        if (!ASSET.test(asset)) throw badRequest({ asset: "not an asset" })
        const [balance] = await listBalances(s.db, profile.id, [asset])
        return json(c, balance)
      })
  )
}
