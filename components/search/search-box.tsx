"use client"

import { useQueryClient } from "@tanstack/react-query"
import Link from "next/link"
import { usePathname, useRouter } from "next/navigation"
import { type KeyboardEvent, useEffect, useId, useRef, useState } from "react"
import { describeError } from "@/components/ui/problem-alert"
import { searchKeys } from "@/lib/queries/keys"
import { chooseProfile } from "@/lib/queries/profiles"
import { fetchSearch } from "@/lib/queries/search"
import type { SearchMatch, SearchResult } from "@/lib/schemas/search"
import { MatchLine } from "./match-line"
import { SearchResultSummary } from "./search-result-summary"

/** The list under the box shows at most this many; the results page shows them all. */
const SHORT_LIST = 8

type State =
  | { kind: "idle" }
  | { kind: "searching"; q: string }
  | { kind: "done"; result: SearchResult }
  | { kind: "failed"; q: string; detail: string }

/** A key press that types into a field (or a dialog's own keys): never taken over by the shortcut. */
function typingTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false
  if (target.isContentEditable) return true
  if (target.closest("dialog, [role='dialog']")) return true
  return ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName)
}

/** Goes to a match's page: a profile becomes the profile the operator works on first. */
export function openMatch(match: SearchMatch, push: (href: string) => void): void {
  if (match.kind === "profile") chooseProfile(match.id)
  push(match.href)
}

/**
 * The header's search (support and up): paste any id or ref_id and press Enter. `/` or
 * Ctrl/⌘-K focuses it from anywhere. One match opens its page; several show a short list
 * (arrows move, Enter opens, Escape closes and keeps the focus in the box); none says
 * what was searched and where.
 */
export function SearchBox() {
  const router = useRouter()
  const pathname = usePathname()
  const queryClient = useQueryClient()
  const input = useRef<HTMLInputElement>(null)
  const box = useRef<HTMLDivElement>(null)
  const listId = useId()
  const [value, setValue] = useState("")
  const [state, setState] = useState<State>({ kind: "idle" })
  const [open, setOpen] = useState(false)
  const [active, setActive] = useState(0)
  const navigated = useRef<string | null>(null)

  useEffect(() => {
    function onKey(event: globalThis.KeyboardEvent) {
      const chord = (event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === "k"
      const slash = event.key === "/" && !event.ctrlKey && !event.metaKey && !event.altKey
      if (!chord && !slash) return
      if (typingTarget(event.target)) return
      event.preventDefault()
      input.current?.focus()
      input.current?.select()
    }
    document.addEventListener("keydown", onKey)
    return () => document.removeEventListener("keydown", onKey)
  }, [])

  // After a search opened a page, the keyboard goes to that page's heading once it shows.
  useEffect(() => {
    if (navigated.current === null || navigated.current !== pathname) return
    navigated.current = null
    let tries = 0
    const timer = setInterval(() => {
      const heading = document.querySelector<HTMLElement>("main h1")
      if (heading || ++tries > 40) {
        clearInterval(timer)
        if (heading) {
          if (!heading.hasAttribute("tabindex")) heading.setAttribute("tabindex", "-1")
          heading.focus()
        }
      }
    }, 50)
    return () => clearInterval(timer)
  }, [pathname])

  useEffect(() => {
    if (!open) return
    function onPointer(event: PointerEvent) {
      if (box.current && !box.current.contains(event.target as Node)) setOpen(false)
    }
    document.addEventListener("pointerdown", onPointer)
    return () => document.removeEventListener("pointerdown", onPointer)
  }, [open])

  function go(match: SearchMatch) {
    setOpen(false)
    setValue("")
    setState({ kind: "idle" })
    navigated.current = match.href.split("?")[0] ?? match.href
    openMatch(match, (href) => router.push(href))
  }

  async function search() {
    const q = value.trim()
    if (q === "") {
      setState({ kind: "failed", q, detail: "Paste an id, a ref_id or a quote id first." })
      setOpen(true)
      return
    }
    setState({ kind: "searching", q })
    setOpen(true)
    try {
      const result = await fetchSearch(q)
      queryClient.setQueryData(searchKeys.query(result.q), result)
      const only = result.matches.length === 1 ? result.matches[0] : undefined
      if (only) {
        go(only)
        return
      }
      setActive(0)
      setState({ kind: "done", result })
    } catch (error) {
      setState({ kind: "failed", q, detail: describeError(error).detail ?? describeError(error).title })
    }
  }

  const matches = state.kind === "done" ? state.result.matches : []
  const listed = matches.slice(0, SHORT_LIST)
  const expanded = open && listed.length > 0
  const optionId = (i: number) => `${listId}-option-${i}`

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === "Escape") {
      if (open) {
        event.preventDefault()
        setOpen(false)
      } else if (value !== "") {
        setValue("")
      }
      return
    }
    if (expanded && (event.key === "ArrowDown" || event.key === "ArrowUp")) {
      event.preventDefault()
      const step = event.key === "ArrowDown" ? 1 : -1
      setActive((i) => (i + step + listed.length) % listed.length)
      return
    }
    if (event.key === "Enter") {
      event.preventDefault()
      const chosen = expanded ? listed[active] : undefined
      if (chosen && state.kind === "done" && state.result.q === value.trim()) go(chosen)
      else void search()
    }
  }

  const announcement =
    state.kind === "searching"
      ? `Searching for ${state.q}…`
      : state.kind === "done"
        ? state.result.matches.length === 0
          ? "Nothing found."
          : `${state.result.matches.length} matches; use the arrow keys and Enter to open one.`
        : state.kind === "failed"
          ? state.detail
          : ""

  return (
    <div ref={box} className="relative">
      <form role="search" aria-label="Search records" onSubmit={(e) => e.preventDefault()} className="relative">
        <label htmlFor={`${listId}-input`} className="sr-only">
          Search any id, ref_id or quote id
        </label>
        <input
          id={`${listId}-input`}
          ref={input}
          type="search"
          role="combobox"
          aria-expanded={expanded}
          aria-controls={`${listId}-list`}
          aria-autocomplete="none"
          aria-activedescendant={expanded ? optionId(active) : undefined}
          aria-keyshortcuts="/ Control+K Meta+K"
          autoComplete="off"
          spellCheck={false}
          placeholder="Search id or ref_id"
          data-testid="search-input"
          value={value}
          onChange={(e) => setValue(e.target.value)}
          onKeyDown={onKeyDown}
          className="w-40 rounded-md border border-slate-300 px-2 py-1 text-sm placeholder:text-slate-500 focus:border-blue-600 focus:outline-none focus:ring-2 focus:ring-blue-600 sm:w-56 sm:py-1.5 sm:pr-7 lg:w-72"
        />
        {/* The key that focuses the box; not on touch screens (app/globals.css .key-hint). */}
        <kbd aria-hidden className="key-hint pointer-events-none absolute right-2 top-1/2 hidden -translate-y-1/2 rounded border border-slate-300 px-1 font-mono text-xs text-slate-600 sm:block">
          /
        </kbd>
      </form>
      <p className="sr-only" aria-live="polite" data-testid="search-announcement">
        {open ? announcement : ""}
      </p>
      {open && state.kind !== "idle" ? (
        <div
          className="absolute right-0 z-40 mt-1 w-[28rem] max-w-[90vw] rounded-md border border-slate-200 bg-white p-3 text-sm shadow-lg"
          data-testid="search-popup"
        >
          {state.kind === "searching" ? <p className="text-slate-700">Searching…</p> : null}
          {state.kind === "failed" ? (
            <p className="text-red-800" data-testid="search-problem">
              {state.detail}
            </p>
          ) : null}
          {state.kind === "done" ? (
            <>
              {listed.length > 0 ? (
              <ul id={`${listId}-list`} role="listbox" aria-label={`Matches for ${state.result.q}`} className="space-y-1">
                {listed.map((m, i) => (
                  <li
                    key={`${m.kind}:${m.id}`}
                    id={optionId(i)}
                    role="option"
                    aria-selected={i === active}
                    className={`cursor-pointer rounded px-2 py-1.5 ${i === active ? "bg-blue-50 ring-1 ring-blue-300" : "hover:bg-slate-50"}`}
                    onPointerDown={(e) => e.preventDefault()}
                    onClick={() => go(m)}
                  >
                    <MatchLine match={m} />
                  </li>
                ))}
              </ul>
              ) : null}
              <SearchResultSummary result={state.result} />
              <p className="mt-2">
                <Link
                  href={`/search?q=${encodeURIComponent(state.result.q)}`}
                  className="text-blue-800 underline"
                  onClick={() => setOpen(false)}
                >
                  {matches.length > SHORT_LIST ? `All ${matches.length} matches` : "Open as a page"} (a link to share)
                </Link>
              </p>
            </>
          ) : null}
        </div>
      ) : null}
    </div>
  )
}
