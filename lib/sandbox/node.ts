import "server-only"
import type { AddressInfo } from "node:net"
import { type Http2Bindings, type HttpBindings, serve } from "@hono/node-server"
import { type Sandbox, isDroppedConnection } from "@/lib/sandbox/index"

export interface SandboxServer {
  /** e.g. http://127.0.0.1:4010 (paths start with /sandbox). */
  origin: string
  port: number
  close(): Promise<void>
}

/**
 * Serves a sandbox over HTTP with @hono/node-server (npm run sandbox, and the HTTP tests).
 * A "drop" fault destroys the socket before any byte of a response is written, so the
 * client sees a network failure, not a status.
 */
export function serveSandbox(sandbox: Sandbox, options: { port: number; hostname?: string }): Promise<SandboxServer> {
  const hostname = options.hostname ?? "127.0.0.1"
  return new Promise((resolve, reject) => {
    const server = serve(
      {
        hostname,
        port: options.port,
        overrideGlobalObjects: false,
        fetch: async (request: Request, bindings: HttpBindings | Http2Bindings) => {
          const response = await sandbox.fetch(request)
          if (!isDroppedConnection(response)) return response
          if ("socket" in bindings.incoming) bindings.incoming.socket.destroy()
          // Tells the adapter the response is handled: nothing more is written.
          return new Response(null, { headers: { "x-hono-already-sent": "1" } })
        },
      },
      (info: AddressInfo) => {
        const host = hostname.includes(":") ? `[${hostname}]` : hostname
        resolve({
          origin: `http://${host}:${info.port}`,
          port: info.port,
          close: () =>
            new Promise<void>((done) => {
              server.close(() => done())
              if ("closeAllConnections" in server) server.closeAllConnections()
            }),
        })
      },
    )
    server.once("error", reject)
  })
}
