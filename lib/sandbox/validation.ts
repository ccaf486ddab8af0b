import "server-only"
import type { z } from "zod"
import { readBoundedText } from "@/lib/http/bounded-body"
import { illFormedField } from "@/lib/http/well-formed"
import { badRequest } from "@/lib/sandbox/problems"

/**
 * Parses with a shared zod schema and turns failures into one 400 naming every
 * offending field in `meta.fields`. `paths: "top"` reports by top-level field (what a
 * form shows next to an input: `metadata`, not `metadata.<key>`); `"full"` keeps the
 * whole path (`rules[0].status`), for nested admin bodies.
 */
export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  input: unknown,
  options: { paths?: "top" | "full" } = {},
): z.output<S> {
  const parsed = schema.safeParse(input)
  if (parsed.success) return parsed.data
  // No prototype: a client's key named `valueOf` or `constructor` must not read as already set.
  const fields = Object.create(null) as Record<string, string>
  const add = (field: string, message: string) => {
    const current = fields[field]
    if (current === undefined) fields[field] = message
    else if (!current.split("; ").includes(message)) fields[field] = `${current}; ${message}`
  }
  for (const issue of parsed.error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) add(joinPath([...issue.path, key], options.paths), "is not a known field")
      continue
    }
    if (issue.path.length === 0) {
      add("body", issue.code === "invalid_type" ? "must be a JSON object" : issue.message)
      continue
    }
    const missing = issue.code === "invalid_type" && valueAt(input, issue.path) === undefined
    add(joinPath(issue.path, options.paths), missing ? "is required" : issue.message)
  }
  throw badRequest(fields)
}

function joinPath(path: readonly PropertyKey[], mode: "top" | "full" = "top"): string {
  if (mode === "top") return String(path[0] ?? "body")
  return path.reduce<string>((out, part) => {
    if (typeof part === "number") return `${out}[${part}]`
    return out === "" ? String(part) : `${out}.${String(part)}`
  }, "")
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = input
  for (const part of path) {
    if (current === null || typeof current !== "object") return undefined
    current = (current as Record<PropertyKey, unknown>)[part]
  }
  return current
}

/** Reads a JSON body; anything but a JSON object is a 400. */
export async function readJsonObject(request: Request): Promise<Record<string, unknown>> {
  // Never held past 64 KiB: a longer body is a 413 (see the app's error handler).
  const text = await readBoundedText(request, 64 * 1024)
  let value: unknown
  try {
    value = text.trim() === "" ? undefined : JSON.parse(text)
  } catch {
    throw badRequest({ body: "must be valid JSON" })
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw badRequest({ body: "must be a JSON object" })
  }
  const bad = illFormedField(value)
  if (bad) throw badRequest({ [bad.field]: bad.rule })
  return value as Record<string, unknown>
}

/**
 * Query parameters for a list schema: the last value of each known key (unknown keys are
 * ignored, as the service does). Repeated parameters that are lists are read elsewhere.
 */
export function queryFor(url: URL, keys: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {}
  for (const key of keys) {
    const values = url.searchParams.getAll(key)
    const last = values[values.length - 1]
    if (last !== undefined) out[key] = last
  }
  return out
}

/** A list parameter given repeatedly (`?a=X&a=Y`) or comma-separated (`?a=X,Y`). */
export function listParam(url: URL, key: string): string[] {
  return url.searchParams
    .getAll(key)
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter((v) => v !== "")
}
