import { HttpProblem } from "@/lib/problem"
import { withStaff } from "@/lib/console/with-staff"

// Any other /api path: a 404 problem (Next's own 404 is an HTML page), after the same
// session and Origin checks as every route, so it tells signed-out callers nothing.
const notFound = withStaff<{ path?: string[] }>("viewer", ({ req }) => {
  throw new HttpProblem({ status: 404, detail: `The console's API has no ${req.method} ${req.nextUrl.pathname}.` })
})

export const GET = notFound
export const POST = notFound
export const PUT = notFound
export const PATCH = notFound
export const DELETE = notFound
