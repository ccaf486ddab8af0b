import type { z } from "zod"

/**
 * A form's submission waiting at its confirm step, or sent with its answer not yet seen,
 * kept in sessionStorage so a reload resumes it: the same body with the same ref_id. One
 * that was sent is looked up, never sent again on its own. `useSubmission`'s `persist`
 * option does the keeping (lib/queries/submission); each form has its own key and schema.
 * No zod at run time here: it loads with lib/queries/submission.
 */
export interface PendingBase {
  version: 1
  refId: string
  body: { ref_id: string }
  /** The request left the browser at least once: its outcome is unknown until answered. */
  sent: boolean
  savedAt: string
}

/** A pending submission older than this is dropped rather than resumed. */
export const PENDING_MAX_AGE_MS = 24 * 60 * 60 * 1000

export type Store = Pick<Storage, "getItem" | "setItem" | "removeItem">

export interface PendingStore<T extends PendingBase> {
  save: (store: Store, pending: T) => void
  /** The pending submission, or null (nothing kept, unreadable, inconsistent or too old: then it is dropped). */
  load: (store: Store, nowMs: number) => T | null
  clear: (store: Store) => void
}

/**
 * One form's pending submission under `key`. `consistent` adds the form's own checks
 * (beyond the body's ref_id being the submission's).
 */
export function pendingStore<T extends PendingBase>(key: string, schema: z.ZodType<T>, consistent: (pending: T) => boolean = () => true): PendingStore<T> {
  const clear = (store: Store) => {
    try {
      store.removeItem(key)
    } catch {
      // Nothing to do: see save.
    }
  }
  const save = (store: Store, pending: T) => {
    try {
      store.setItem(key, JSON.stringify(pending))
    } catch {
      // Storage full or blocked: the submission still works, it just won't survive a reload.
    }
  }
  const load = (store: Store, nowMs: number): T | null => {
    let raw: string | null
    try {
      raw = store.getItem(key)
    } catch {
      return null
    }
    if (raw === null) return null
    let json: unknown
    try {
      json = JSON.parse(raw)
    } catch {
      clear(store)
      return null
    }
    const parsed = schema.safeParse(json)
    if (!parsed.success || parsed.data.body.ref_id !== parsed.data.refId || !consistent(parsed.data) || !(nowMs - Date.parse(parsed.data.savedAt) < PENDING_MAX_AGE_MS)) {
      clear(store)
      return null
    }
    return parsed.data
  }
  return { save, load, clear }
}

/** The page's sessionStorage, or null where there is none (server, blocked storage). */
export function sessionStore(): Storage | null {
  try {
    return typeof window === "undefined" ? null : window.sessionStorage
  } catch {
    return null
  }
}
