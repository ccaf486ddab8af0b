import type { Metadata } from "next"
import Link from "next/link"
import { ReplayButton } from "@/components/events/replay-button"
import { NotAllowed } from "@/components/layout/role-gates"
import { Badge, type BadgeTone } from "@/components/ui/badge"
import { IdChip } from "@/components/ui/id-chip"
import { Table, TableBody, TableHead, Td, Th, Tr } from "@/components/ui/table"
import { Timestamp } from "@/components/ui/timestamp"
import { roleAtLeast } from "@/lib/auth/roles"
import { currentStaff } from "@/lib/auth/session"
import { listEventLog } from "@/lib/console/event-log"
import { consoleRuntime } from "@/lib/console/runtime"
import { formatCount } from "@/lib/format"
import { EVENT_LOG_STATUSES, type EventLogEntry, eventLogQuerySchema } from "@/lib/schemas/events"

export const metadata: Metadata = { title: "Events" }
export const dynamic = "force-dynamic"

const STATUS_TONE: Record<EventLogEntry["status"], BadgeTone> = { processed: "success", retrying: "warning", parked: "danger" }

const control = "block w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm text-slate-900 shadow-sm"

function first(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value
  return v === undefined || v.trim() === "" ? undefined : v.trim()
}

/** "2026-11-26" from a date input → the start of that UTC day; the end of the day for `to`. */
function dayBound(day: string | undefined, end: boolean): string | undefined {
  if (!day || !/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined
  return `${day}T${end ? "23:59:59.999" : "00:00:00.000"}Z`
}

/** What the event's object is, for the id chip's name: "orchestration.completed" → "orchestration id". */
function objectLabel(type: string): string {
  return `${type.split(".")[0] ?? "object"} id`
}

function seconds(value: number | null): string {
  if (value === null) return "—"
  return value < 120 ? `${formatCount(Math.round(value))} s` : `${formatCount(Math.round(value / 60))} min`
}

export default async function EventsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const staff = await currentStaff()
  if (!staff) return null
  if (!roleAtLeast(staff.role, "admin")) return <NotAllowed heading="Events" needs="The event log needs the admin role" role={staff.role} />
  const search = await searchParams
  const filters = { type: first(search.type), status: first(search.status), from: first(search.from), to: first(search.to) }
  const parsed = eventLogQuerySchema.safeParse({
    type: filters.type,
    status: filters.status,
    from: dayBound(filters.from, false),
    to: dayBound(filters.to, true),
    page_cursor: first(search.page_cursor),
    limit: "50",
  })
  const runtime = await consoleRuntime()
  const page = parsed.success ? await listEventLog(runtime.db, runtime.events, parsed.data) : null
  const next = page?.next_page_cursor
    ? `/events?${new URLSearchParams(Object.entries({ ...filters, page_cursor: page.next_page_cursor }).filter((e): e is [string, string] => e[1] !== undefined)).toString()}`
    : null
  return (
    <div className="space-y-4">
      <div>
        <h1 className="text-2xl font-semibold">Events</h1>
        <p className="mt-1 text-sm text-slate-700">
          What the service says happened: orchestrations, deposits and other transfers, read from its Events API by one instance and processed once each. A
          processing that fails is tried again, then parked here with the reason; Replay processes an event again without applying anything twice.
        </p>
      </div>
      {page ? (
        <dl className="grid grid-cols-2 gap-2 text-sm sm:grid-cols-4" data-testid="reader-status">
          <div>
            <dt className="text-slate-600">Reader</dt>
            <dd className="font-medium">{page.reader.mode === "off" ? "off (EVENTS_POLL_MS=0)" : page.reader.mode === "solo" ? "this instance" : "one instance of all"}</dd>
          </div>
          <div>
            <dt className="text-slate-600">Lag</dt>
            <dd className="font-medium tabular">{seconds(page.reader.lag_seconds)}</dd>
          </div>
          <div>
            <dt className="text-slate-600">Retrying</dt>
            <dd className="font-medium tabular">{formatCount(page.reader.retrying)}</dd>
          </div>
          <div>
            <dt className="text-slate-600">Parked</dt>
            <dd className="font-medium tabular" data-testid="parked-count">
              {formatCount(page.reader.parked)}
            </dd>
          </div>
        </dl>
      ) : null}
      <form method="get" action="/events" className="grid grid-cols-2 items-end gap-2 sm:grid-cols-5" aria-label="Filter events">
        <label className="col-span-2 space-y-1 text-sm sm:col-span-1">
          <span className="block font-medium text-slate-800">Type</span>
          <input name="type" defaultValue={filters.type} placeholder="orchestration." className={control} />
        </label>
        <label className="space-y-1 text-sm">
          <span className="block font-medium text-slate-800">Status</span>
          <select name="status" defaultValue={filters.status ?? ""} className={control}>
            <option value="">Any</option>
            {EVENT_LOG_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label className="space-y-1 text-sm">
          <span className="block font-medium text-slate-800">From (UTC)</span>
          <input type="date" name="from" defaultValue={filters.from} className={control} />
        </label>
        <label className="space-y-1 text-sm">
          <span className="block font-medium text-slate-800">To (UTC)</span>
          <input type="date" name="to" defaultValue={filters.to} className={control} />
        </label>
        <div className="flex gap-2">
          <button type="submit" className="h-9 rounded-md bg-blue-700 px-3 text-sm font-medium text-white hover:bg-blue-800">
            Filter
          </button>
          <Link href="/events" className="inline-flex h-9 items-center rounded-md px-3 text-sm font-medium text-slate-700 hover:bg-slate-100">
            Clear
          </Link>
        </div>
      </form>
      {!parsed.success ? (
        <p role="alert" className="text-sm font-medium text-red-700">
          {parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}
        </p>
      ) : page && page.items.length === 0 ? (
        <p className="text-sm text-slate-700">No events{filters.type || filters.status || filters.from || filters.to ? " match these filters" : " read yet"}.</p>
      ) : page ? (
        <Table caption="Service events, newest first" framed density="compact" tableClassName="min-w-[56rem]">
          <TableHead>
            <Th>Type</Th>
            <Th>At the service</Th>
            <Th>Object</Th>
            <Th>Status</Th>
            <Th>Processed</Th>
            <Th align="right">Attempts</Th>
            <Th align="right">Undelivered webhooks</Th>
            <Th>
              <span className="sr-only">Actions</span>
            </Th>
          </TableHead>
          <TableBody>
            {page.items.map((event) => (
              <Tr key={event.id} data-testid="event-row" data-id={event.id} data-type={event.type}>
                <Td className="font-mono text-xs">{event.type}</Td>
                <Td>
                  <Timestamp value={event.created_at} />
                </Td>
                <Td>
                  <IdChip
                    value={event.object_id}
                    label={objectLabel(event.type)}
                    testId="event-object"
                    href={event.object_href ?? undefined}
                  />
                </Td>
                <Td>
                  <Badge tone={STATUS_TONE[event.status]}>
                    <span data-testid="event-status">{event.status}</span>
                  </Badge>
                  {event.last_error ? <div className="mt-1 max-w-xs text-xs text-red-800">{event.last_error}</div> : null}
                </Td>
                <Td className="text-xs">
                  <Timestamp value={event.processed_at} />
                  {event.processed_by ? (
                    <div className="text-slate-600">
                      by <IdChip value={event.processed_by} label="instance" />
                    </div>
                  ) : null}
                  {event.replays > 0 ? <div className="text-slate-600">replayed {formatCount(event.replays)}×</div> : null}
                </Td>
                <Td align="right" className="tabular">
                  {formatCount(event.attempts)}
                </Td>
                <Td align="right" className="tabular">
                  {event.undelivered_webhooks === null ? "—" : formatCount(event.undelivered_webhooks)}
                </Td>
                <Td>
                  <ReplayButton id={event.id} type={event.type} />
                </Td>
              </Tr>
            ))}
          </TableBody>
        </Table>
      ) : null}
      {next ? (
        <Link href={next} className="inline-block text-sm font-medium text-blue-700 underline">
          Older events
        </Link>
      ) : null}
    </div>
  )
}
