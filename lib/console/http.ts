import "server-only"
import { z } from "zod"
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

/** A record answered with how the console placed it. */
export function placedResponse(placed: { record: unknown; replayed: boolean; intentId: string }): Response {
  return Response.json(placed.record, {
    headers: { "x-console-intent-id": placed.intentId, "x-console-replayed": String(placed.replayed) },
  })
}
