import { FOREIGN_HOST_DETAIL, foreignHostReason } from "@/lib/auth/host"
import { forbiddenHost, notFound, problemResponse } from "@/lib/problem"
import { consoleRuntime } from "@/lib/console/runtime"

export const dynamic = "force-dynamic"

// ANY /sandbox/** - the embedded sandbox over HTTP (its own OAuth; not the console's session)
async function handler(req: Request): Promise<Response> {
  if (foreignHostReason(req.headers)) {
    return problemResponse(forbiddenHost(FOREIGN_HOST_DETAIL))
  }
  const { sandbox } = await consoleRuntime()
  if (!sandbox) {
    return problemResponse(notFound("The embedded sandbox runs in sandbox mode only."))
  }
  return sandbox.fetch(req)
}

export { handler as GET, handler as POST, handler as PUT, handler as DELETE, handler as PATCH }
