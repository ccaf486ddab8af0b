"use client"

import { CONVERSION_DECIMALS } from "@/lib/format"
import Link from "next/link"
import { useRouter } from "next/navigation"
import { Card } from "@/components/ui/card"
import { CopyButton } from "@/components/ui/copy-button"
import { IdChip } from "@/components/ui/id-chip"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { Table, TableBody, TableHead, Td, Th, Tr } from "@/components/ui/table"
import { Amount } from "@/components/ui/amount"
import { StatusBadge } from "@/components/ui/badge"
import { Timestamp } from "@/components/ui/timestamp"
import { useSearchQuery } from "@/lib/queries/search"
import type { SearchMatch } from "@/lib/schemas/search"
import { KIND_WORDS, MATCHED_BY_WORDS } from "./format"
import { useProfileName } from "./match-line"
import { openMatch } from "./search-box"
import { SearchResultSummary } from "./search-result-summary"

function MatchRow({ match }: { match: SearchMatch }) {
  const router = useRouter()
  const profile = useProfileName(match.profile_id)
  return (
    <Tr data-testid="search-row">
      <Td>
        <Link
          href={match.href}
          className="font-medium text-blue-800 underline"
          onClick={(e) => {
            e.preventDefault()
            openMatch(match, (href) => router.push(href))
          }}
        >
          {KIND_WORDS[match.kind]}
        </Link>
        <span className="block text-xs text-slate-700">{match.summary}</span>
      </Td>
      <Td>
        <IdChip value={match.id} label={`${KIND_WORDS[match.kind].toLowerCase()} id`} testId="search-row-id" />
      </Td>
      <Td>{match.kind === "profile" ? "—" : (profile ?? "—")}</Td>
      <Td align="right">{match.amount ? <Amount value={match.amount.value} asset={match.amount.asset} places={match.kind === "conversion" ? CONVERSION_DECIMALS : undefined} /> : "—"}</Td>
      <Td>{match.status ? <StatusBadge status={match.status} /> : "—"}</Td>
      <Td>
        <Timestamp value={match.time} />
      </Td>
      <Td>{MATCHED_BY_WORDS[match.matched_by]}</Td>
    </Tr>
  )
}

/** The search's whole answer on a page of its own: every match, and where it looked (a link to share). */
export function SearchResults({ q }: { q: string }) {
  const trimmed = q.trim()
  const query = useSearchQuery(trimmed === "" ? null : trimmed)
  if (trimmed === "") {
    return <p className="text-sm text-slate-700">Paste an id, a ref_id or a quote id in the search box at the top (press / to get there).</p>
  }
  if (query.isPending) {
    return (
      <p role="status" className="text-sm text-slate-700">
        Searching for <q className="font-mono">{trimmed}</q>…
      </p>
    )
  }
  if (query.error) return <ProblemAlert error={query.error} />
  const result = query.data
  return (
    <Card
      title={
        <>
          {result.matches.length} match{result.matches.length === 1 ? "" : "es"} for <q className="break-all font-mono">{result.q}</q>
        </>
      }
      actions={<CopyButton value={() => window.location.href} label="link to this search" />}
    >
      <div className="space-y-4">
        {result.matches.length > 0 ? (
          <Table caption={`Matches for ${result.q}`} density="compact">
            <TableHead>
              <Th>Type</Th>
              <Th>Id</Th>
              <Th>Profile</Th>
              <Th align="right">Amount</Th>
              <Th>Status</Th>
              <Th>Time</Th>
              <Th>Matched by</Th>
            </TableHead>
            <TableBody>
              {result.matches.map((m) => (
                <MatchRow key={`${m.kind}:${m.id}`} match={m} />
              ))}
            </TableBody>
          </Table>
        ) : null}
        <SearchResultSummary result={result} detailed />
      </div>
    </Card>
  )
}
