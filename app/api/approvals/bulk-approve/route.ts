import { relyingParty } from "@/lib/auth/webauthn"
import { approveMany } from "@/lib/console/approvals/bulk"
import { heldQuotesOf } from "@/lib/console/held-quotes"
import { readJson } from "@/lib/console/http"
import { withStaff } from "@/lib/console/with-staff"
import { env } from "@/lib/env"
import { bulkApproveBodySchema } from "@/lib/schemas/approvals"

// POST /api/approvals/bulk-approve - approve several requests ({ids, comment?, step_up?}) with one passkey assertion over the digest of the list; each item's outcome
export const POST = withStaff("trader", async ({ req, staff, runtime }) => {
  const body = bulkApproveBodySchema.parse(await readJson(req))
  const stepUp = { mode: env().stepUp, rp: relyingParty(req.headers, req.url), assertion: body.step_up }
  return Response.json(await approveMany(runtime, staff, body.ids, { comment: body.comment }, { heldQuotes: heldQuotesOf(runtime), stepUp }))
})
