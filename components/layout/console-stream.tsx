"use client"

import { useQueryClient } from "@tanstack/react-query"
import { useConsoleStream, useLastPushedRecord, useStreamState } from "@/lib/queries/stream"

/**
 * The tab's one GET /api/stream, open while a console page is (lib/queries/stream.ts).
 * Shows nothing: a hidden marker carries its state and the last record change it pushed.
 */
export function ConsoleStream() {
  useConsoleStream(useQueryClient())
  const state = useStreamState()
  const lastRecord = useLastPushedRecord()
  return <span hidden data-testid="console-stream" data-state={state} data-last-record={lastRecord} />
}
