import "server-only"
import type { ConsoleIntent } from "@/lib/db/schema"
import { conversionPath, executionPath, transferPath } from "@/lib/record-paths"
import type { Conversion, Profile, QuoteExecution } from "@/lib/schemas/records"
import type { SearchMatch } from "@/lib/schemas/search"
import type { Transfer } from "@/lib/schemas/transfer"
import { transferTypeLabel } from "@/lib/schemas/transfer-constants"

/** What a search says about a record, an intent or a profile it found. */

/** How a match was found: what q was equal to, where, and the console's intent behind it. */
export type Found = Pick<SearchMatch, "matched_by" | "found_in" | "intent_id">

function text(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null
}

export function executionMatch(e: QuoteExecution, found: Found): SearchMatch {
  const shown = { summary: `${e.side} ${e.market}`, amount: { value: e.base_amount, asset: e.base_asset }, status: e.status, time: e.created_at }
  return { kind: "execution", id: e.id, ...found, href: executionPath(e.profile_id, e.id), profile_id: e.profile_id, ...shown }
}

export function conversionMatch(c: Conversion, found: Found): SearchMatch {
  const amount = c.amount ? { value: c.amount, asset: c.source_asset ?? null } : null
  const shown = { summary: `${c.source_asset ?? "?"} → ${c.target_asset ?? "?"}`, amount, status: c.status, time: c.created_at ?? null }
  return { kind: "conversion", id: c.id, ...found, href: conversionPath(c.id), profile_id: c.profile_id ?? null, ...shown }
}

export function transferMatch(t: Transfer, found: Found): SearchMatch {
  const shown = { summary: transferTypeLabel(t.type), amount: { value: t.amount, asset: t.asset }, status: t.status, time: t.created_at }
  return { kind: "transfer", id: t.id, ...found, href: transferPath(t.id), profile_id: t.profile_id ?? null, ...shown }
}

export function profileMatch(p: Profile): SearchMatch {
  return {
    kind: "profile",
    id: p.id,
    matched_by: "id",
    found_in: "service",
    // No profile page: the executions page, with this profile chosen (the client chooses it).
    href: "/executions",
    profile_id: p.id,
    summary: p.nickname,
    amount: null,
    status: null,
    time: null,
    intent_id: null,
  }
}

const OPERATION_WORDS: Record<string, string> = {
  create_execution: "Quote execution",
  create_conversion: "Conversion",
  cancel_conversion: "Cancel of a conversion",
  update_policy: "Approval policy change",
  replay_event: "Replay of a service event",
  take_snapshot: "Balance snapshot",
  update_notifications: "Team notifications change",
}

/** What the intent log alone says about an intent that q names. */
export function intentMatch(intent: ConsoleIntent, q: string): SearchMatch | null {
  const request = intent.request
  const starts = (value: string | null) => value !== null && value.toLowerCase().startsWith(q.toLowerCase())
  const matchedBy: SearchMatch["matched_by"] =
    intent.id === q
      ? "intent_id"
      : intent.refId === q || (intent.state === "REFUSED" && request.ref_id === q)
        ? "ref_id"
        : intent.recordId === q
          ? "id"
          : intent.targetId === q
            ? "target_id"
            : request.quote_id === q
              ? "quote_id"
              : "id_prefix"
  // A prefix names the intent by its own id, or else the record it made or cancelled.
  const byOwnPrefix = matchedBy === "id_prefix" && starts(intent.id) && !starts(intent.recordId) && !starts(intent.refId) && !starts(intent.targetId)
  const amountValue = text(request.base_amount) ?? text(request.quote_amount) ?? text(request.amount)
  const base = {
    matched_by: matchedBy,
    found_in: "intent_log" as const,
    profile_id: intent.profileId,
    status: intent.recordStatus ?? intent.state,
    time: intent.createdAt.toISOString(),
    intent_id: intent.id,
  }
  // A pasted intent id names the intent: its page tells the whole story and links the record.
  if (matchedBy !== "intent_id" && !byOwnPrefix) {
    if (intent.operation === "create_execution" && intent.state === "SUCCEEDED" && intent.recordId && intent.profileId) {
      return {
        ...base,
        kind: "execution",
        id: intent.recordId,
        href: executionPath(intent.profileId, intent.recordId),
        summary: "Quote execution",
        amount: amountValue ? { value: amountValue, asset: null } : null,
      }
    }
    if (intent.operation === "create_conversion" && intent.state === "SUCCEEDED" && intent.recordId) {
      return {
        ...base,
        kind: "conversion",
        id: intent.recordId,
        href: conversionPath(intent.recordId),
        summary: `${text(request.source_asset) ?? "?"} → ${text(request.target_asset) ?? "?"}`,
        amount: amountValue ? { value: amountValue, asset: text(request.source_asset) } : null,
      }
    }
    // A cancel names the conversion it acted on: the conversion is what was asked for.
    if (intent.operation === "cancel_conversion" && intent.targetId !== null && (intent.targetId === q || starts(intent.targetId))) {
      const id = intent.targetId
      return { ...base, kind: "conversion", id, matched_by: id === q ? "id" : "id_prefix", href: conversionPath(id), summary: "Conversion", amount: null }
    }
    // The policy's intents all carry target "policy": not something a person pastes.
    if (intent.operation === "update_policy" || intent.operation === "replay_event" || intent.operation === "take_snapshot" || intent.operation === "update_notifications") return null
  }
  return {
    ...base,
    kind: "intent",
    id: intent.id,
    href: `/intents/${intent.id}`,
    summary: `${OPERATION_WORDS[intent.operation] ?? intent.operation} (${intent.state.toLowerCase().replace("_", " ")})`,
    amount: amountValue ? { value: amountValue, asset: text(request.source_asset) } : null,
  }
}
