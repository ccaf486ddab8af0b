"use client"

import { useCallback, useEffect, useRef, useState } from "react"
import type { FieldPath, FieldValues, UseFormSetError } from "react-hook-form"
import type { z } from "zod"
import { ApiProblemError } from "@/lib/queries/api"
import { type PendingBase, type PendingStore, sessionStore } from "@/lib/queries/pending-submission"
import { problemSlug } from "@/lib/schemas/problem-slug"
import { newRefId } from "@/lib/queries/ref-id"

/**
 * Exactly-once submission in the browser, for every form that creates a record.
 *
 * One submission is one ref_id, made when the form opens: double clicks and retries of
 * that submission send it again unchanged, so the console and the service place it once.
 * A definite refusal ends the submission (nothing was placed) and the next one gets a new
 * ref_id. When the outcome is unknown the form first asks the console what became of the
 * ref_id, and sends it again only when the person says so: never on its own, and never on
 * a reload. A new ref_id replaces it only once the console has said nothing was placed.
 */

// A fresh ref_id (lib/queries/ref-id): the trade desk makes one up front without loading this module.
export { newRefId } from "@/lib/queries/ref-id"

/**
 * What a failed create means for its submission:
 * - unknown: it may or may not have been placed; ask, or send the same body with the same
 *   ref_id again (which can never place it twice); never start a new ref_id yet;
 * - refused: nothing was placed; the next submission gets a new ref_id;
 * - already-exists: the ref_id names a record already (the 409's `meta.existing`);
 * - conflict: the ref_id is taken by a different request; the next submission gets a new one.
 *
 * Unknown: no answer at all, an answer that could not be read, 5xx (the console or the
 * service failed somewhere between receiving and answering), 429 (a limiter may sit after
 * the create), 401 (the page leaves for sign-in; the submission is kept for afterwards),
 * and 408. A 408 comes from whatever timed the request out: the console, or a proxy or load
 * balancer in front of it, possibly after the console had already passed the create to the
 * service. Nothing in a 408 says the create did not happen, so it cannot end the submission.
 */
export type FailureKind = "unknown" | "refused" | "already-exists" | "conflict"

export function classifyFailure(error: unknown): FailureKind {
  if (!(error instanceof ApiProblemError)) return "unknown"
  const { status } = error
  if (status === 409) return problemSlug(error.problem) === "already-exists" ? "already-exists" : "conflict"
  if (status === 401 || status === 408 || status === 429 || status >= 500) return "unknown"
  return "refused"
}

/** The record a 409 carries in `meta.existing` (a create's ref_id taken, a cancel too late), if it is readable. */
export function existingRecord<T>(error: unknown, schema: z.ZodType<T>): T | null {
  if (!(error instanceof ApiProblemError) || error.status !== 409) return null
  const parsed = schema.safeParse(error.problem.meta?.existing)
  return parsed.success ? parsed.data : null
}

/** What the console says became of a ref_id whose answer never arrived. */
export type EarlierSubmission<T> =
  | { placed: true; record: T }
  /** Nothing was placed under it, and nothing is on its way: a new ref_id is safe. */
  | { placed: false }
  /** Could not tell (the look-up failed, found nothing yet, or the create is still on its way). */
  | { placed: "unknown"; error: unknown }

export type SubmissionState<TBody, TRecord> =
  /** `notPlaced`: the console said a submission resumed after a reload was not placed; it may be placed now. */
  | { kind: "open"; notPlaced?: boolean }
  | { kind: "placed"; record: TRecord; via: "created" | "existing" | "placed-earlier"; error?: unknown }
  | { kind: "refused"; body: TBody; error: unknown; conflict: boolean }
  | {
      kind: "unknown"
      body: TBody
      /** When it was last sent: a look-up need not search before it. */
      sentAt: Date
      error: unknown
      /** Why the last look-up could not tell. */
      checkError?: unknown
      /** It was sent before a reload of the page. */
      resumed: boolean
    }

/** A kept submission (see lib/queries/pending-submission) whose body is this form's. */
export type KeptSubmission<TBody> = PendingBase & { body: TBody }

/** What a form keeps beside the body: its values, and whatever else it needs to show the submission again. */
export type KeptExtras<TKept extends PendingBase> = Omit<TKept, keyof PendingBase>

/** The field → rule map of a refusal (`meta.fields` of a 400), or an empty one. */
export function problemFields(error: unknown): Record<string, string> {
  const fields = error instanceof ApiProblemError ? error.problem.meta?.fields : undefined
  if (!fields || typeof fields !== "object") return {}
  return Object.fromEntries(Object.entries(fields).filter((entry): entry is [string, string] => typeof entry[1] === "string"))
}

export interface SubmissionOptions<TBody extends { ref_id: string }, TRecord, TKept extends KeptSubmission<TBody> = KeptSubmission<TBody>, TValues extends FieldValues = FieldValues> {
  /** Sends the create (a mutation's `mutateAsync`). */
  send: (body: TBody) => Promise<TRecord>
  /** Asks the console what became of `body.ref_id`. */
  lookup: (body: TBody, sentAt: Date) => Promise<EarlierSubmission<TRecord>>
  /** The record's schema, to read a 409's `meta.existing`. */
  existing: z.ZodType<TRecord>
  /**
   * Keeps the submission in sessionStorage so a reload resumes it: `keep` stores it at the
   * confirm step, every send stores it as sent first, and it is dropped once placed or
   * refused (or by `drop`). A look-up that finds nothing placed drops it too, unless it was
   * resumed after a reload: the form offers that one again, and another reload asks again.
   */
  persist?: {
    /** This form's store (`pendingStore(key, schema)`). */
    store: PendingStore<TKept>
    /** The kept submission the page found after a reload, or null. A sent one is asked about at once, never sent again on its own. */
    resume: TKept | null
  }
  /** Shows a refusal's `meta.fields` under the form's own fields. */
  fieldErrors?: {
    setError: UseFormSetError<TValues>
    /** The form field a problem's field lands on; null when it is none of the form's. */
    fieldOf: (field: string) => FieldPath<TValues> | null
    /** What is shown under it (the rule as it came, by default). */
    message?: (field: string, rule: string) => string
  }
  /** Called with every answer (to a send, a retry or a look-up). */
  onAnswer?: (state: SubmissionState<TBody, TRecord>) => void
}

export interface Submission<TBody, TRecord, TKept extends PendingBase = PendingBase> {
  /** The ref_id of the current submission: put it in the body that is sent. */
  refId: string
  state: SubmissionState<TBody, TRecord>
  sending: boolean
  checking: boolean
  /** How many times a resumed submission's outcome has been asked about again, by itself. */
  asked: number
  /** Sends `body` (its ref_id is the current one); a second call while one is in flight is dropped. Kept as sent first, when the form persists. */
  submit: (body: TBody) => void
  /** The person asked to send the submission whose outcome is unknown again, with the same ref_id. */
  retry: () => void
  /** Asks what became of the submission whose outcome is unknown; nothing placed → a new submission starts. */
  check: () => void
  /** A new submission: a new ref_id, nothing pending. Only offered once the last one is settled. */
  startOver: () => void
  /** Keeps `body` waiting at the confirm step (not sent yet), with the form's `extras`, so a reload resumes it. */
  keep: (body: TBody, extras: KeptExtras<TKept>) => void
  /** Forgets the kept submission: the person cancelled it. */
  drop: () => void
  /** Shows `fields` (field → rule) under the form's fields; answers the ones the form has no field for, as "field: rule". */
  showFieldRules: (fields: Record<string, string>, type?: "server" | "schema") => string[]
}

/** How often a submission resumed after a reload is asked about again while the console cannot tell. */
export const RESUME_POLL_MS = 2_000

/** One exactly-once submission (see the top of this module); used by every create form. */
export function useSubmission<TBody extends { ref_id: string }, TRecord, TKept extends KeptSubmission<TBody> = KeptSubmission<TBody>, TValues extends FieldValues = FieldValues>(
  options: SubmissionOptions<TBody, TRecord, TKept, TValues>,
): Submission<TBody, TRecord, TKept> {
  const [resume] = useState(() => options.persist?.resume ?? null)
  const [refId, setRefId] = useState(() => resume?.refId ?? newRefId())
  const [state, setState] = useState<SubmissionState<TBody, TRecord>>(() =>
    resume?.sent ? { kind: "unknown", body: resume.body, sentAt: new Date(resume.savedAt), error: null, resumed: true } : { kind: "open" },
  )
  const [sending, setSending] = useState(false)
  const [checking, setChecking] = useState(false)
  // Synchronous guards: a double click lands before React re-renders.
  const busy = useRef(false)
  const latest = useRef(options)
  useEffect(() => {
    latest.current = options
  })
  const stateRef = useRef(state)
  // What is kept for the submission under review (the store's copy is dropped once it settles; a confirm may keep it again).
  const kept = useRef<TKept | null>(resume)

  const withStorage = useCallback((write: (store: PendingStore<TKept>, storage: Storage) => void) => {
    const persist = latest.current.persist
    const storage = persist ? sessionStore() : null
    if (persist && storage) write(persist.store, storage)
  }, [])

  const keep = useCallback(
    (body: TBody, extras: KeptExtras<TKept>) => {
      // The extras are the rest of TKept: the spread is the whole of it.
      kept.current = { ...extras, version: 1, refId: body.ref_id, body, sent: false, savedAt: new Date().toISOString() } as TKept
      const pending = kept.current
      withStorage((store, storage) => store.save(storage, pending))
    },
    [withStorage],
  )

  const drop = useCallback(() => {
    kept.current = null
    withStorage((store, storage) => store.clear(storage))
  }, [withStorage])

  const showFieldRules = useCallback((fields: Record<string, string>, type: "server" | "schema" = "server") => {
    const elsewhere: string[] = []
    const target = latest.current.fieldErrors
    for (const [field, rule] of Object.entries(fields)) {
      const name = target?.fieldOf(field)
      if (target && name) target.setError(name, { type, message: target.message?.(field, rule) ?? rule })
      else elsewhere.push(`${field}: ${rule}`)
    }
    return elsewhere
  }, [])

  const answer = useCallback(
    (next: SubmissionState<TBody, TRecord>, keepStored: boolean) => {
      stateRef.current = next
      setState(next)
      // Only an unknown outcome (or a resumed one offered again) stays resumable after a reload.
      if (!keepStored) withStorage((store, storage) => store.clear(storage))
      if (next.kind === "refused") showFieldRules(problemFields(next.error))
      latest.current.onAnswer?.(next)
    },
    [withStorage, showFieldRules],
  )

  const settle = useCallback(
    (next: SubmissionState<TBody, TRecord>) => {
      // A settled submission (placed or refused) frees the form for the next one.
      if (next.kind === "placed" || next.kind === "refused") setRefId(newRefId())
      answer(next, next.kind === "unknown")
    },
    [answer],
  )

  const submit = useCallback(
    (body: TBody) => {
      if (busy.current) return
      const held = kept.current
      if (latest.current.persist && held?.refId !== body.ref_id) throw new Error("keep() the body before submitting it")
      busy.current = true
      setSending(true)
      const sentAt = new Date()
      if (held) {
        // Kept as sent before it leaves: a reload before the answer asks about it instead of losing it.
        const pending = { ...held, body, sent: true, savedAt: sentAt.toISOString() }
        kept.current = pending
        withStorage((store, storage) => store.save(storage, pending))
      }
      void latest.current
        .send(body)
        .then(
          (record) => settle({ kind: "placed", record, via: "created" }),
          (error: unknown) => {
            const kind = classifyFailure(error)
            const existing = kind === "already-exists" ? existingRecord(error, latest.current.existing) : null
            if (existing) settle({ kind: "placed", record: existing, via: "existing", error })
            else if (kind === "unknown") settle({ kind: "unknown", body, sentAt, error, resumed: false })
            else settle({ kind: "refused", body, error, conflict: kind !== "refused" })
          },
        )
        .finally(() => {
          busy.current = false
          setSending(false)
        })
    },
    [settle, withStorage],
  )

  const retry = useCallback(() => {
    const current = stateRef.current
    if (current.kind === "unknown") submit(current.body)
  }, [submit])

  const check = useCallback(() => {
    const current = stateRef.current
    if (current.kind !== "unknown" || busy.current) return
    busy.current = true
    setChecking(true)
    void latest.current
      .lookup(current.body, current.sentAt)
      .catch((error: unknown): EarlierSubmission<TRecord> => ({ placed: "unknown", error }))
      .then((found) => {
        if (found.placed === true) settle({ kind: "placed", record: found.record, via: "placed-earlier" })
        else if (found.placed === false) {
          setRefId(newRefId())
          answer(current.resumed ? { kind: "open", notPlaced: true } : { kind: "open" }, current.resumed)
        } else settle({ ...current, checkError: found.error })
      })
      .finally(() => {
        busy.current = false
        setChecking(false)
      })
  }, [settle, answer])

  const startOver = useCallback(() => {
    if (busy.current) return
    stateRef.current = { kind: "open" }
    setState(stateRef.current)
    setRefId(newRefId())
  }, [])

  // A reload found a submission that had left without an answer: ask, never send it again,
  // and keep asking by itself while the console cannot tell (it may still be on its way).
  const askedOnResume = useRef(false)
  const resumed = resume?.sent === true
  useEffect(() => {
    if (!resumed || askedOnResume.current) return
    askedOnResume.current = true
    check()
  }, [resumed, check])
  const [asked, setAsked] = useState(0)
  const stillUnknown = state.kind === "unknown" && state.resumed && !checking && !sending
  useEffect(() => {
    if (!stillUnknown) return
    const timer = setTimeout(() => {
      setAsked((n) => n + 1)
      check()
    }, RESUME_POLL_MS)
    return () => clearTimeout(timer)
  }, [stillUnknown, state, check])

  return { refId, state, sending, checking, asked, submit, retry, check, startOver, keep, drop, showFieldRules }
}
