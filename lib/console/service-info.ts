import "server-only"
import { env } from "@/lib/env"

/** Which service the console talks to, in words a person can check. */
export function serviceInfo(): { mode: "sandbox" | "upstream"; host: string; description: string } {
  const config = env()
  if (config.upstream.kind === "sandbox") {
    return { mode: "sandbox", host: "embedded sandbox (/sandbox)", description: "the embedded sandbox, served by this console under /sandbox" }
  }
  const host = new URL(config.upstream.baseUrl).host
  return { mode: "upstream", host, description: `the service at ${config.upstream.baseUrl}` }
}
