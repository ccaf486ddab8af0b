import "server-only"
import { randomBytes } from "node:crypto"

let lastMs = 0
let sequence = 0

/**
 * A version 7 UUID (RFC 9562) from the sandbox clock, monotonic within the process (a
 * 12-bit sequence in `rand_a`): rows stamped in the same millisecond sort by id in the
 * order they were made, so a list ordered by (created_at, id) shows them as they happened:
 * an event's completion never before its pending, a transfer never before the one made
 * just ahead of it (events, deposits, orchestrations and their two transfers).
 */
export function timeOrderedId(now: Date): string {
  let ms = now.getTime()
  if (ms <= lastMs) {
    ms = lastMs
    sequence++
    if (sequence > 0xfff) {
      ms = lastMs + 1
      sequence = 0
    }
  } else {
    sequence = 0
  }
  lastMs = ms
  const bytes = randomBytes(16)
  bytes.writeUIntBE(ms, 0, 6)
  bytes[6] = 0x70 | (sequence >> 8)
  bytes[7] = sequence & 0xff
  bytes[8] = 0x80 | ((bytes[8] ?? 0) & 0x3f)
  const hex = bytes.toString("hex")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}
