import "server-only"
import { z } from "zod"
import { type ApiContext, seg } from "@/lib/upstream/api-context"

/**
 * The service's Events API (GET /v2/events, GET /v2/events/{id}, scope events:read_event),
 * parsed with zod like every other answer. The console reads it as the source of truth of
 * what happened outside it (lib/console/event-reader.ts); a webhook is only a hint to read sooner.
 */

/** An event as the service sends it: the payload (`object`) is left as a record, its handlers read what they know. */
export const serviceEventSchema = z.object({
  id: z.string().min(1),
  type: z.string().min(1),
  object_type: z.string().optional(),
  object: z.record(z.string(), z.unknown()).optional(),
  created_at: z.iso.datetime({ offset: true }),
  undelivered_webhooks: z.number().int().min(0).optional(),
})
export type ServiceEvent = z.infer<typeof serviceEventSchema>

export const serviceEventPageSchema = z.object({
  events: z.array(serviceEventSchema),
  next_page_cursor: z.string().optional(),
})
export type ServiceEventPage = z.infer<typeof serviceEventPageSchema>

export interface EventListFilter {
  "created_at.gt"?: string | undefined
  "created_at.gte"?: string | undefined
  "created_at.lt"?: string | undefined
  "created_at.lte"?: string | undefined
  type?: string | undefined
  is_test?: boolean | undefined
  order?: "ASC" | "DESC" | undefined
  /** At most 1,000 at the service; 100 when left out. */
  limit?: number | undefined
  page_cursor?: string | undefined
}

export interface EventOperations {
  listEvents(query?: EventListFilter): Promise<ServiceEventPage>
  getEvent(id: string): Promise<ServiceEvent>
}

export function createEventOperations(ctx: ApiContext): EventOperations {
  const read = { method: "GET" as const, scopes: ctx.scopes, retry: true, mutating: false }
  return {
    async listEvents(query = {}) {
      const url = ctx.apiUrl("/events", {
        "created_at.gt": query["created_at.gt"],
        "created_at.gte": query["created_at.gte"],
        "created_at.lt": query["created_at.lt"],
        "created_at.lte": query["created_at.lte"],
        type: query.type,
        is_test: query.is_test === undefined ? undefined : String(query.is_test),
        order: query.order,
        limit: query.limit,
        page_cursor: query.page_cursor || undefined,
      })
      const page = (await ctx.call({ ...read, op: "listEvents", url, schema: serviceEventPageSchema })).value
      // "Empty when no more results": the console says none.
      return page.next_page_cursor ? page : { events: page.events }
    },
    async getEvent(id) {
      const url = ctx.apiUrl(`/events/${seg(id)}`)
      return (await ctx.call({ ...read, op: "getEvent", url, schema: serviceEventSchema })).value
    },
  }
}
