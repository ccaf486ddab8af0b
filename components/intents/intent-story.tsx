"use client"

import Link from "next/link"
import { Card } from "@/components/ui/card"
import { CopyButton } from "@/components/ui/copy-button"
import { IdChip } from "@/components/ui/id-chip"
import { cn } from "@/components/ui/cn"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { Timestamp } from "@/components/ui/timestamp"
import { useRecordIntentsQuery } from "@/lib/queries/search"
import type { IntentStory } from "@/lib/schemas/search"
import { type RecordTimes, timelineEvents } from "./timeline"

const DOT = { neutral: "bg-slate-400", good: "bg-emerald-600", bad: "bg-red-600" } as const

/** The console's intents and the service's record as one ordered list. */
export function Timeline({ stories, record }: { stories: IntentStory[]; record: RecordTimes | null }) {
  const events = timelineEvents(stories, record)
  return (
    <ol className="space-y-3" data-testid="timeline">
      {events.map((e, i) => (
        <li key={`${e.at}-${i}`} className="flex gap-3 text-sm">
          <span aria-hidden="true" className={cn("mt-1.5 h-2.5 w-2.5 shrink-0 rounded-full", DOT[e.tone])} />
          <div className="min-w-0">
            <p>
              <span className="font-medium text-slate-900">{e.title}</span>{" "}
              <span className="text-xs text-slate-600">({e.source === "console" ? "console" : "service"})</span>
            </p>
            <p className="text-xs text-slate-700">
              <Timestamp value={e.at} />
              {e.who ? <> · {e.who}</> : null}
            </p>
            {e.detail ? <p className="break-words text-xs text-slate-800">{e.detail}</p> : null}
          </div>
        </li>
      ))}
    </ol>
  )
}


/** The request exactly as the console sent it (or will, once approved). */
export function RequestAsSent({ story }: { story: IntentStory }) {
  return (
    <details className="text-sm">
      <summary className="cursor-pointer font-medium text-blue-800">The request as sent</summary>
      <pre className="mt-2 overflow-x-auto rounded bg-slate-50 p-3 font-mono text-xs text-slate-900" data-testid="request-as-sent">
        {JSON.stringify(story.request, null, 2)}
      </pre>
    </details>
  )
}

/**
 * A record's whole story: the console's intents behind it (who asked, approvals, attempts,
 * outcome) and the service's own times, as one timeline. A record another client placed
 * has only the service's part, and says so.
 */
export function RecordStory({ recordId, record }: { recordId: string; record: RecordTimes | null }) {
  const query = useRecordIntentsQuery(recordId)
  const stories = query.data?.items ?? []
  const placed = stories.find((s) => s.operation.startsWith("create_"))
  return (
    <Card title="Timeline" actions={<CopyButton value={() => window.location.href} label="link to this page" />}>
      <div className="space-y-4" data-testid="record-story">
        {query.error ? <ProblemAlert error={query.error} /> : null}
        {query.isPending ? <p className="text-sm text-slate-700">Loading what the console knows…</p> : null}
        {query.data && stories.length === 0 ? (
          <p className="text-sm text-slate-700" data-testid="not-placed-here">
            Not placed through this console: the service&apos;s record is the whole story.
          </p>
        ) : null}
        <Timeline stories={stories} record={record} />
        {placed ? (
          <div className="space-y-2 text-sm">
            <p>
              Console intent <IdChip value={placed.id} label="intent id" testId="story-intent-id" full />{" "}
              <Link href={`/intents/${placed.id}`} className="text-blue-800 underline" data-testid="intent-link">
                Open the intent
              </Link>
            </p>
            <RequestAsSent story={placed} />
          </div>
        ) : null}
      </div>
    </Card>
  )
}
