"use client"

import { useQueryClient } from "@tanstack/react-query"
import { useConsoleStream } from "@/lib/queries/stream"

/** The tab's one GET /api/stream, open while a console page is (lib/queries/stream.ts). Renders nothing. */
export function ConsoleStream() {
  useConsoleStream(useQueryClient())
  return null
}
