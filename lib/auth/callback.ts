/** Only same-site paths: an open redirect after sign-in would be a phishing aid. */
export function safeCallback(raw: string | undefined): string {
  if (!raw || !raw.startsWith("/") || raw.startsWith("//") || raw.startsWith("/\\")) return "/"
  return raw
}
