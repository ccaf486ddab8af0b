import "server-only"
import { createHash } from "node:crypto"

/**
 * Deterministic randomness: every draw is a hash of a seed and the draw's coordinates
 * (asset and second for prices; operation, rule and request number for faults), so a
 * run can be replayed exactly by reusing the seed.
 */
export function unitDraw(...parts: readonly (string | number)[]): number {
  const digest = createHash("sha256").update(parts.join("\u001f")).digest()
  // 48 bits are plenty and stay exact in a double.
  return digest.readUIntBE(0, 6) / 2 ** 48
}

/** A standard normal draw (Box–Muller over two unit draws). */
export function normalDraw(...parts: readonly (string | number)[]): number {
  const u1 = Math.max(unitDraw(...parts, "u1"), Number.MIN_VALUE)
  const u2 = unitDraw(...parts, "u2")
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2)
}
