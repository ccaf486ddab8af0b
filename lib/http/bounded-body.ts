/**
 * Reading a request body without letting it grow past a limit. A Content-Length over the
 * limit is refused before a byte is read; a body without one (chunked) is read until it
 * passes the limit by one byte, and then the stream is cancelled: at most `limit + 1`
 * bytes (plus one chunk) are ever held.
 */
export class BodyTooLarge extends Error {
  override name = "BodyTooLarge"
  constructor(readonly limit: number) {
    super(`The body must be at most ${describeBytes(limit)}.`)
  }
}

export function describeBytes(limit: number): string {
  return limit % 1024 === 0 ? `${limit / 1024} KiB` : `${limit} bytes`
}

/** Throws BodyTooLarge when the declared length is over the limit (no reading). */
export function checkDeclaredLength(headers: Headers, limit: number): void {
  const declared = headers.get("content-length")
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > limit) throw new BodyTooLarge(limit)
}

export async function readBoundedBody(req: Request, limit: number): Promise<Uint8Array<ArrayBuffer>> {
  checkDeclaredLength(req.headers, limit)
  if (!req.body) return new Uint8Array(new ArrayBuffer(0))
  const reader = req.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      await reader.cancel().catch(() => undefined)
      throw new BodyTooLarge(limit)
    }
    chunks.push(value)
  }
  const out = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    out.set(chunk, offset)
    offset += chunk.byteLength
  }
  return out
}

export async function readBoundedText(req: Request, limit: number): Promise<string> {
  return new TextDecoder().decode(await readBoundedBody(req, limit))
}

/** The same request with its body read (within the limit) and held in memory. */
export async function withBoundedBody(req: Request, limit: number): Promise<Request> {
  if (req.method === "GET" || req.method === "HEAD") return req
  const body = await readBoundedBody(req, limit)
  const headers = new Headers(req.headers)
  headers.delete("transfer-encoding")
  headers.set("content-length", String(body.byteLength))
  return new Request(req.url, { method: req.method, headers, body: body.byteLength > 0 ? body : null, signal: req.signal })
}
