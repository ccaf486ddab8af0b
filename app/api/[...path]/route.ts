import { notFound } from "@/lib/problem"
import { withStaff } from "@/lib/console/with-staff"

// Any other /api path: a 404 problem (Next's own 404 is an HTML page), after the same
// session and Origin checks as every route, so it tells signed-out callers nothing.
const noSuchRoute = withStaff<{ path?: string[] }>("viewer", ({ req }) => {
  throw notFound(`The console's API has no ${req.method} ${req.nextUrl.pathname}.`)
})

export const GET = noSuchRoute
export const POST = noSuchRoute
export const PUT = noSuchRoute
export const PATCH = noSuchRoute
export const DELETE = noSuchRoute
