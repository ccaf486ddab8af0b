import "server-only"
import { z } from "zod"
import { HttpProblem } from "@/lib/problem"
import { idSchema } from "@/lib/schemas/common"

/** Query parameters as an object (a repeated key keeps its last value). */
export function queryObject(req: Request): Record<string, string> {
  return Object.fromEntries(new URL(req.url).searchParams)
}

/** Path parameters, each checked like any other field (a 400 names the bad one). */
export function pathParams<K extends string>(params: Record<string, unknown>, ...names: K[]): Record<K, string> {
  const shape = Object.fromEntries(names.map((name) => [name, idSchema])) as Record<K, typeof idSchema>
  return z.object(shape).parse(params) as Record<K, string>
}

/** Reads a JSON body; a body that is not JSON is a 400 naming the rule. */
export async function readJson(req: Request): Promise<unknown> {
  const type = req.headers.get("content-type") ?? ""
  if (!/^application\/(.+\+)?json\b/i.test(type)) {
    throw new HttpProblem({ status: 415, detail: "The body must be JSON (Content-Type: application/json)." })
  }
  const text = await req.text()
  if (text.length > 64 * 1024) throw new HttpProblem({ status: 413, detail: "The body must be at most 64 KiB." })
  try {
    return JSON.parse(text) as unknown
  } catch {
    throw new HttpProblem({
      status: 400,
      detail: "body: must be valid JSON",
      meta: { fields: { body: "must be valid JSON" } },
    })
  }
}

/** A record answered with how the console placed it. */
export function placedResponse(placed: { record: unknown; replayed: boolean; intentId: string }): Response {
  return Response.json(placed.record, {
    headers: { "x-console-intent-id": placed.intentId, "x-console-replayed": String(placed.replayed) },
  })
}

/**
 * A create's answer: the record when it was placed; 202 with the approval request when it
 * waits for a second person (`x-console-approval-id` names it).
 */
export function submissionResponse(
  submission:
    | { kind: "placed"; placed: { record: unknown; replayed: boolean; intentId: string } }
    | { kind: "request"; request: { id: string }; replayed: boolean },
): Response {
  if (submission.kind === "placed") return placedResponse(submission.placed)
  return Response.json(submission.request, {
    status: 202,
    headers: { "x-console-approval-id": submission.request.id, "x-console-replayed": String(submission.replayed) },
  })
}
