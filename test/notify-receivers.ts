import { type IncomingHttpHeaders, type Server, createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { SMTPServer } from "smtp-server"
import { Webhook } from "standardwebhooks"

/**
 * Real receivers for the notification tests, each on a port of its own on 127.0.0.1: an
 * SMTP server (smtp-server), and an HTTP receiver for chat and signed webhooks that can be
 * down (503), hang (no answer) or up. A receiver drops repeats by the delivery's id, as the
 * console asks of every receiver.
 */

export interface Mail {
  to: string[]
  raw: string
  /** The raw message with quoted-printable undone (soft line breaks, =XX). */
  decoded: string
  subject: string
  messageId: string
}

export async function startSmtp(credentials = { user: "console", pass: "smtp-pass" }): Promise<{ url: string; mails: Mail[]; close(): Promise<void> }> {
  const mails: Mail[] = []
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === credentials.user && auth.password === credentials.pass) callback(null, { user: auth.username })
      else callback(new Error("bad credentials"))
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on("data", (c: Buffer) => chunks.push(c))
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8")
        const decoded = raw.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
        const header = (name: string) => new RegExp(`^${name}: (.*(?:\\r?\\n[ \\t].*)*)`, "mi").exec(raw)?.[1]?.replace(/\r?\n[ \t]/g, " ") ?? ""
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address), raw, decoded, subject: header("Subject"), messageId: header("Message-ID") })
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.server.address() as AddressInfo).port
  return {
    url: `smtp://${credentials.user}:${credentials.pass}@127.0.0.1:${port}`,
    mails,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

export interface Received {
  headers: IncomingHttpHeaders
  body: string
}

export interface HttpReceiver {
  url: string
  /** Every request, repeats included. */
  received: Received[]
  /** The bodies kept once per delivery id (webhook-id, or x-delivery-id for chat), as a receiver that drops repeats does. */
  kept: Map<string, Received>
  /** Signatures that did not verify (webhook receivers). */
  badSignatures: number
  /** up: answers 204; down: 503; hang: no answer (nothing kept); hold: keeps it (dropping a repeat), then no answer, as a receiver that processed it but whose answer never got back. */
  mode: "up" | "down" | "hang" | "hold"
  /** Stops listening (connections refused, open ones cut), as a receiver that is down; `listen` starts again on the same port. */
  unlisten(): Promise<void>
  listen(): Promise<void>
  /** Resolves when the next request arrives. */
  next(): Promise<Received>
  close(): Promise<void>
}

export async function startHttpReceiver(options: { secret?: string; path?: string } = {}): Promise<HttpReceiver> {
  const waiters: ((r: Received) => void)[] = []
  const hanging = new Set<() => void>()
  const receiver: HttpReceiver = {
    url: "",
    received: [],
    kept: new Map(),
    badSignatures: 0,
    mode: "up",
    next: () => new Promise((resolve) => waiters.push(resolve)),
    close: async () => {
      for (const end of hanging) end()
      server.closeAllConnections()
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()))
    },
    unlisten: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      for (const end of hanging) end()
      server.closeAllConnections()
      await closed
    },
    listen: () => new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve)),
  }
  let port = 0
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const got: Received = { headers: req.headers, body: Buffer.concat(chunks).toString("utf8") }
      receiver.received.push(got)
      for (const w of waiters.splice(0)) w(got)
      const id = String(got.headers["webhook-id"] ?? got.headers["x-delivery-id"] ?? "")
      if (receiver.mode === "hang") {
        hanging.add(() => res.destroy())
        return
      }
      if (receiver.mode === "down") {
        res.writeHead(503).end()
        return
      }
      if (options.secret) {
        try {
          new Webhook(options.secret).verify(got.body, got.headers as Record<string, string>)
        } catch {
          receiver.badSignatures++
          res.writeHead(400).end()
          return
        }
      }
      if (!receiver.kept.has(id)) receiver.kept.set(id, got)
      if (receiver.mode === "hold") {
        hanging.add(() => res.destroy())
        return
      }
      res.writeHead(204).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  port = (server.address() as AddressInfo).port
  receiver.url = `http://127.0.0.1:${port}${options.path ?? "/"}`
  return receiver
}
