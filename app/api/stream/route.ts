import { roleAtLeast } from "@/lib/auth/roles"
import { sessionRecheck } from "@/lib/auth/session"
import { rememberInBackground } from "@/lib/console/served-quotes"
import { STREAM_HEADERS, openStream } from "@/lib/console/stream"
import { withStaff } from "@/lib/console/with-staff"
import { unauthenticated } from "@/lib/problem"
import { streamQuerySchema } from "@/lib/schemas/stream"

// A stream answer is never pre-rendered or cached.
export const dynamic = "force-dynamic"

const list = (params: URLSearchParams, key: string) => params.getAll(key).flatMap((v) => v.split(",")).filter(Boolean)

// GET /api/stream?quotes=all|markets=BTCUSD&records=<id>&topics=inbox,approvals,approval_list,overview,notifications -
// Server-Sent Events for one open tab (issue 37): quotes of `markets`, status changes of
// `records` and of the person's own placements (resumable with Last-Event-ID), the sandbox's
// fault status, and the topics the role may read (`ready` says which); a heartbeat every
// 15 s, the session checked again every 20 s and the stream ended when it is over.
export const GET = withStaff("viewer", async ({ req, staff, runtime }) => {
  const params = req.nextUrl.searchParams
  const query = streamQuerySchema.parse({
    quotes: params.get("quotes") ?? undefined,
    markets: list(params, "markets"),
    records: list(params, "records"),
    topics: list(params, "topics"),
    last_event_id: req.headers.get("last-event-id") || params.get("last_event_id") || undefined,
  })
  const { quotes, markets, records, topics } = query
  const lastEventId = query.last_event_id === undefined ? null : Number(query.last_event_id)
  const recheck = await sessionRecheck(req)
  if (!recheck) throw unauthenticated("Sign in to use the console.")
  const trader = roleAtLeast(staff.role, "trader")
  const body = openStream({
    hub: runtime.stream,
    email: staff.email,
    role: staff.role,
    topics,
    markets: quotes === "all" ? "all" : markets,
    records,
    lastEventId,
    signal: req.signal,
    // The session still valid, with the same person at the same role (a changed role reconnects).
    sessionValid: async () => {
      const now = await recheck()
      return now !== null && now.email === staff.email && now.role === staff.role
    },
    // What may be executed is only what the console served to that person (the limit price's proof).
    served: trader ? (_snapshot, quotes) => rememberInBackground(runtime.db, staff, quotes) : undefined,
  })
  return new Response(body, { headers: STREAM_HEADERS })
})
