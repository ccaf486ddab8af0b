import { consoleRuntime } from "@/lib/console/runtime"
import { withBearerToken } from "@/lib/console/with-bearer-token"
import { env } from "@/lib/env"
import { metricsText } from "@/lib/metrics"

export const dynamic = "force-dynamic"

// GET /api/metrics - Prometheus text format; bearer METRICS_TOKEN, no session (404 when unset)
export const GET = withBearerToken(
  () => env().metricsToken,
  async () => {
    // The database-backed gauges (intents, quote age, limiter) are wired when the runtime is built.
    await consoleRuntime()
    const { body, contentType } = await metricsText()
    return new Response(body, { headers: { "content-type": contentType } })
  },
)
