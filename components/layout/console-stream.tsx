"use client"

import { useQueryClient } from "@tanstack/react-query"
import { useConsoleStream, useLastPushedRecord, useStreamState, useStreamTopics } from "@/lib/queries/stream"

/**
 * The tab's one GET /api/stream, open while a console page is (lib/queries/stream.ts).
 * Shows nothing: a hidden marker carries its state, the topics the live stream carries
 * ("approvals,inbox,…": their polls are off) and the last record change it pushed.
 */
export function ConsoleStream() {
  useConsoleStream(useQueryClient())
  const state = useStreamState()
  const lastRecord = useLastPushedRecord()
  const topics = useStreamTopics()
  return <span hidden data-testid="console-stream" data-state={state} data-topics={topics} data-last-record={lastRecord} />
}
