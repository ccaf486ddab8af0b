import { consoleRuntime } from "@/lib/console/runtime"
import { validationProblem } from "@/lib/console/with-staff"
import { withApiKey } from "@/lib/console/with-bearer-token"
import { env } from "@/lib/env"
import { BodyTooLarge, readBoundedText } from "@/lib/http/bounded-body"
import { errorKind, log } from "@/lib/log"
import { recordWebhookHint } from "@/lib/metrics"
import { bodyTooLarge, problemResponse, validationFailed } from "@/lib/problem"
import { WEBHOOK_BODY_LIMIT, webhookHintSchema } from "@/lib/schemas/webhook"

export const dynamic = "force-dynamic"

// POST /api/webhooks/service - the service's webhook: an API key in WEBHOOK_API_KEY_HEADER, no session (404 when WEBHOOK_API_KEY is unset).
// The payload is a hint: it wakes the event reader, which reads GET /v2/events; nothing in it is believed.
export const POST = withApiKey(
  () => env().webhook,
  async ({ req }) => {
    let text: string
    try {
      text = await readBoundedText(req, WEBHOOK_BODY_LIMIT)
    } catch (error) {
      if (!(error instanceof BodyTooLarge)) throw error
      recordWebhookHint("too_large")
      return problemResponse(bodyTooLarge(error.message))
    }
    let value: unknown
    try {
      value = JSON.parse(text) as unknown
    } catch {
      recordWebhookHint("invalid")
      return problemResponse(validationFailed({ body: "must be valid JSON" }, "body: must be valid JSON"))
    }
    const hint = webhookHintSchema.safeParse(value)
    if (!hint.success) {
      recordWebhookHint("invalid")
      return problemResponse(validationProblem(hint.error))
    }
    const runtime = await consoleRuntime()
    recordWebhookHint("accepted")
    const events = runtime.events
    if (events) {
      // Here when this instance reads; in the lease row for the instance that does (its next tick).
      events.wake()
      events.hintElsewhere().catch((error: unknown) => log.warn("events.hint_failed", { error: errorKind(error) }))
    }
    return Response.json({ accepted: true, reader: events ? "woken" : "off" }, { status: 202 })
  },
  { onOff: () => recordWebhookHint("off"), onRefused: () => recordWebhookHint("unauthorized") },
)
