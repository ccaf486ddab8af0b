import { vi } from "vitest"

/** The JSON log lines the console wrote (stdout and stderr) while `run` ran, with what `run` returned. */
export async function logLines<T>(run: () => Promise<T>): Promise<{ result: T; lines: Record<string, unknown>[] }> {
  const chunks: string[] = []
  const keep = (chunk: string | Uint8Array) => {
    chunks.push(String(chunk))
    return true
  }
  const out = vi.spyOn(process.stdout, "write").mockImplementation(keep)
  const err = vi.spyOn(process.stderr, "write").mockImplementation(keep)
  let result: T
  try {
    result = await run()
  } finally {
    out.mockRestore()
    err.mockRestore()
  }
  const lines = chunks
    .join("")
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
  return { result, lines }
}

/** The lines of one event. */
export const linesOf = (lines: Record<string, unknown>[], event: string) => lines.filter((line) => line.event === event)
