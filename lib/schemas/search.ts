import { z } from "zod"
import { approvalDecisionShape } from "@/lib/schemas/approvals"
import { intentEntryShape } from "@/lib/schemas/audit"
import { SERVICE_REF_ID_MAX, requiredOr } from "@/lib/schemas/common"

/**
 * GET /api/search: whatever a person pasted (an id, a ref_id, a quote id), trimmed of the
 * spaces a copy picks up. Any text a ref_id can be (the service takes any), but no control
 * characters: a paste that holds one is not an id.
 */
export const SEARCH_Q_MAX = SERVICE_REF_ID_MAX
export const searchQuerySchema = z.strictObject({
  q: z
    .string({ error: requiredOr("must be text") })
    .trim()
    .min(1, "must not be empty")
    .max(SEARCH_Q_MAX, `at most ${SEARCH_Q_MAX} characters`)
    // eslint-disable-next-line no-control-regex
    .refine((value) => !/[\u0000-\u001f\u007f]/.test(value), "must not contain control characters (tabs, line breaks)"),
})
export type SearchQuery = z.infer<typeof searchQuerySchema>

export const SEARCH_KINDS = ["execution", "conversion", "transfer", "intent", "profile"] as const
export type SearchKind = (typeof SEARCH_KINDS)[number]

/** What a pasted string was equal to; id_prefix: the start (8 or more characters) of an id or ref_id the console holds. */
export const MATCHED_BY = ["id", "ref_id", "quote_id", "intent_id", "target_id", "id_prefix", "tx_hash"] as const

/** The shortest start of an id a search looks records up by: what the tables show of a long id. */
export const SEARCH_PREFIX_MIN = 8

export const searchMatchSchema = z.object({
  kind: z.enum(SEARCH_KINDS),
  /** The record's id (the intent's own id for an intent, the profile's for a profile). */
  id: z.string(),
  matched_by: z.enum(MATCHED_BY),
  /** Where it was found: the console's intent log or the service. */
  found_in: z.enum(["intent_log", "service"]),
  /** The console page that shows it. */
  href: z.string(),
  profile_id: z.string().nullable(),
  /** A short line: "BUY BTCUSD", "USD → USDP", a profile's nickname, an intent's operation. */
  summary: z.string(),
  amount: z.object({ value: z.string(), asset: z.string().nullable() }).nullable(),
  status: z.string().nullable(),
  time: z.string().nullable(),
  /** The console's intent behind a record, when the console placed it. */
  intent_id: z.string().nullable(),
})
export type SearchMatch = z.infer<typeof searchMatchSchema>

export const SEARCH_SOURCES = ["intent_log", "service_profiles", "service_conversions", "service_executions", "service_transfers", "service_records"] as const
export type SearchSource = (typeof SEARCH_SOURCES)[number]

export const searchSourceSchema = z.object({
  source: z.enum(SEARCH_SOURCES),
  /** searched: it answered; failed: it did not (the answer may be missing matches); skipped: not asked. */
  state: z.enum(["searched", "failed", "skipped"]),
  /** What was asked, or why not, or what went wrong: plain words for the person searching. */
  detail: z.string(),
})
export type SearchSourceReport = z.infer<typeof searchSourceSchema>

export const searchResultSchema = z.object({
  q: z.string(),
  matches: z.array(searchMatchSchema),
  sources: z.array(searchSourceSchema),
  /** Some source failed: matches may be missing. */
  partial: z.boolean(),
  /** How many calls the service took (never more than the bound). */
  service_calls: z.number(),
})
export type SearchResult = z.infer<typeof searchResultSchema>

/** One intent's whole story as a record page and an intent page show it. */
export const intentStorySchema = z.object({
  ...intentEntryShape,
  approval: z.object({ state: z.string(), ...approvalDecisionShape }).nullable(),
})
export type IntentStory = z.infer<typeof intentStorySchema>

export const intentStoriesSchema = z.object({ items: z.array(intentStorySchema) })

/** GET /api/intents?record_id=: the intents that placed or acted on one record. */
export const intentsQuerySchema = z.strictObject({
  record_id: z
    .string({ error: requiredOr("must be text") })
    .trim()
    .min(1, "must not be empty")
    .max(SEARCH_Q_MAX, `at most ${SEARCH_Q_MAX} characters`),
})
