import "server-only"
import { toDecimal } from "@/lib/money"
import { SANDBOX_ASSETS, faultSettingsUpdateSchema, marketMoveSchema } from "@/lib/schemas/sandbox-tools"
import { REJECT_THRESHOLD, SANDBOX_MARKETS, USD_REFERENCE_RATES } from "@/lib/sandbox/pricing"
import { type SandboxServices, json, router } from "@/lib/sandbox/routes/context"
import { publicSettings } from "@/lib/sandbox/settings"
import { moveSilently } from "@/lib/sandbox/ledger"
import { silentMovementSchema } from "@/lib/schemas/silent-movement"
import { parseOrThrow, readJsonObject } from "@/lib/sandbox/validation"
import { loseRecord } from "@/lib/sandbox/lost-records"
import { lostRecordSchema } from "@/lib/schemas/lost-record"
import { generateHistory } from "@/lib/sandbox/history"
import { historyRequestSchema } from "@/lib/schemas/sandbox-history"

/** /sandbox/admin: fault injection, runtime settings, market moves (scope sandbox:admin). */
export function adminRoutes(s: SandboxServices) {
  return (
    router()
      // GET /sandbox/admin/faults - fault rules, seed, settle delay, rate limits
      .get("/faults", async (c) => json(c, publicSettings(await s.settings.get())))
      // PUT /sandbox/admin/faults - change them (fields left out stay; {"rules": []} clears the rules)
      .put("/faults", async (c) => {
        const patch = parseOrThrow(faultSettingsUpdateSchema, await readJsonObject(c.req.raw), { paths: "full" })
        const updated = await s.settings.update(patch, s.now())
        if (patch.rate_limits !== undefined) s.limiter.reset()
        return json(c, publicSettings(updated))
      })
      // GET /sandbox/admin/config - the fixed configuration, for the admin page
      .get("/config", (c) =>
        json(c, {
          token_ttl_s: s.limits.tokenTtlS,
          max_execution_usd: String(s.limits.maxExecutionUsd),
          max_conversion_usd: String(s.limits.maxConversionUsd),
          usd_reference_rates: USD_REFERENCE_RATES,
          reject_threshold_percent: toDecimal(REJECT_THRESHOLD).mul(100).toString(),
          markets: SANDBOX_MARKETS,
          assets: SANDBOX_ASSETS,
        }),
      )
      // POST /sandbox/admin/orchestrations/{id}/approve - the service's dashboard approving one waiting (PENDING → PROCESSING)
      .post("/orchestrations/:id/approve", async (c) => json(c, await s.orchestrations.approve(c.req.param("id"))))
      // POST /sandbox/admin/orchestrations/{id}/reject - … or rejecting it (PENDING → REJECTED, nothing moved)
      .post("/orchestrations/:id/reject", async (c) => json(c, await s.orchestrations.reject(c.req.param("id"))))
      // POST /sandbox/admin/silent-movements - the fault "move a balance without a record": a profile's available balance changes by a signed amount, with no transfer and no event
      .post("/silent-movements", async (c) => {
        const move = parseOrThrow(silentMovementSchema, await readJsonObject(c.req.raw))
        await s.profiles.require(move.profile_id)
        const balance = await moveSilently(s.db, move.profile_id, move.asset, toDecimal(move.amount), s.now())
        s.log("sandbox.silent_movement", { profileId: move.profile_id, asset: move.asset, amount: move.amount })
        return json(c, { profile_id: move.profile_id, asset: move.asset, amount: move.amount, available: balance.available })
      })
      // POST /sandbox/admin/lost-records - the fault "lose a record": a quote execution or conversion is forgotten (its balance moves stay, no event)
      .post("/lost-records", async (c) => {
        const { record_id: id } = parseOrThrow(lostRecordSchema, await readJsonObject(c.req.raw))
        const lost = await loseRecord(s.db, id)
        s.log("sandbox.lost_record", { recordId: id, kind: lost.kind, profileId: lost.profile_id })
        return json(c, lost)
      })
      // POST /sandbox/admin/history - "generate a past week": the 7 UTC days before today's cutoff filled with settled records (balances now unchanged), and every profile's balances at each cutoff; 409 once the sandbox has any record before today's cutoff
      .post("/history", async (c) => {
        const { seed, days, per_day: perDay } = parseOrThrow(historyRequestSchema, await readJsonObject(c.req.raw))
        const answer = await generateHistory(
          { db: s.db, now: s.now, maxExecutionUsd: s.limits.maxExecutionUsd, maxConversionUsd: s.limits.maxConversionUsd },
          c.get("principal").clientId,
          { seed: seed ?? 1, days, perDay },
        )
        return json(c, answer)
      })
      // POST /sandbox/admin/market-moves - jolt an asset's price (quotes held before it may be Rejected)
      .post("/market-moves", async (c) => {
        const move = parseOrThrow(marketMoveSchema, await readJsonObject(c.req.raw))
        return json(c, await s.quotes.move(move.asset, toDecimal(move.change_percent)))
      })
  )
}
