/**
 * Where to go after sign-in: `raw` resolved against the console's origin, kept only when
 * it stays on that origin and has no control characters or whitespace (a tab or newline
 * in a path is dropped by browsers, which turns `/\t/evil.example` into `//evil.example`).
 * Anything else is `/`. Returns a path (with query and fragment), never throws.
 */
export function safeCallback(raw: string | undefined | null, origin = "http://console.invalid"): string {
  if (!raw || raw.length > 2000) return "/"
  // C0 and C1 controls, DEL, and every Unicode space or separator.
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  if (/[\u0000-\u0020\u007f-\u00a0\u1680\u180e\u2000-\u200b\u2028\u2029\u202f\u205f\u2060\u3000\ufeff\\]/.test(raw)) return "/"
  let base: URL
  let url: URL
  try {
    base = new URL(origin)
    url = new URL(raw, base)
  } catch {
    return "/"
  }
  if (url.origin !== base.origin) return "/"
  const path = `${url.pathname}${url.search}${url.hash}`
  return path.startsWith("/") && !path.startsWith("//") ? path : "/"
}
