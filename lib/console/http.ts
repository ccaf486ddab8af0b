import "server-only"
import { z } from "zod"
import { readBoundedText } from "@/lib/http/bounded-body"
import { illFormedField } from "@/lib/http/well-formed"
import { unsupportedMediaType, validationFailed } from "@/lib/problem"
import { idSchema } from "@/lib/schemas/common"

/** The largest body a console API route reads. */
export const CONSOLE_BODY_LIMIT = 64 * 1024

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
    throw unsupportedMediaType("The body must be JSON (Content-Type: application/json).")
  }
  // Never held past the limit, whatever Content-Length said (or did not say).
  const text = await readBoundedText(req, CONSOLE_BODY_LIMIT)
  let value: unknown
  try {
    value = JSON.parse(text) as unknown
  } catch {
    throw validationFailed({ body: "must be valid JSON" }, "body: must be valid JSON")
  }
  const bad = illFormedField(value)
  if (bad) throw validationFailed({ [bad.field]: bad.rule }, `${bad.field}: ${bad.rule}`)
  return value
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
