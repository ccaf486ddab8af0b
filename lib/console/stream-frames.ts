import "server-only"
import { STREAM_EVENT_SCHEMAS, type StreamEventData, type StreamEventName } from "@/lib/schemas/stream"

/** One SSE event: `event:` name, optional `id:`, JSON `data:` checked against the event's schema. */
export function sseEvent<N extends StreamEventName>(name: N, data: StreamEventData<N>, id?: number | string): string {
  const checked = STREAM_EVENT_SCHEMAS[name].parse(data)
  return `event: ${name}\n${id === undefined ? "" : `id: ${id}\n`}data: ${JSON.stringify(checked)}\n\n`
}
