import Link from "next/link"
import { Badge, type BadgeTone } from "@/components/ui/badge"
import { Table, TableBody, TableHead, Td, Th, Tr } from "@/components/ui/table"
import type { Reconciliation, ReconciliationKind } from "@/lib/console/statements/reconcile"
import { formatCount } from "@/lib/format"

const FINDING: Record<ReconciliationKind, { words: string; tone: BadgeTone }> = {
  missing_at_service: { words: "Missing at the service", tone: "danger" },
  placed_elsewhere: { words: "Placed elsewhere", tone: "neutral" },
  status_differs: { words: "Status differs", tone: "warning" },
  amount_differs: { words: "Amount differs", tone: "danger" },
}

/** The console's creates against the service's records for the period: counts, and one line per finding linking both sides. */
export function ReconciliationView({ reconciliation: r }: { reconciliation: Reconciliation }) {
  return (
    <section aria-labelledby="reconciliation-heading" className="space-y-2" data-testid="reconciliation">
      <h2 id="reconciliation-heading" className="text-base font-semibold text-slate-900">
        Reconciliation with the service
      </h2>
      <p className="text-sm text-slate-700" data-testid="reconciliation-counts">
        {formatCount(r.console_creates)} placed through the console, {formatCount(r.service_records)} trades and conversions at the service, {formatCount(r.matched)} agree.
        {r.lines.length === 0 ? " Nothing to reconcile." : ""} A record placed elsewhere was placed by another client of the service: listed, not an error.
      </p>
      {r.lines.length > 0 ? (
        <Table caption="Findings: each line links the console's intent and the service's record" framed density="compact" tableClassName="min-w-[48rem]">
          <TableHead>
            <Th>Finding</Th>
            <Th>Console</Th>
            <Th>Service</Th>
            <Th>Detail</Th>
          </TableHead>
          <TableBody>
            {r.lines.map((l) => (
              <Tr key={`${l.kind} ${l.console?.intent_id ?? ""} ${l.service.id ?? ""}`} data-testid="reconciliation-line" data-kind={l.kind} data-record={l.service.id ?? ""}>
                <Td>
                  <Badge tone={FINDING[l.kind].tone}>{FINDING[l.kind].words}</Badge>
                </Td>
                <Td className="text-xs">
                  {l.console ? (
                    <>
                      <Link href={l.console.href} className="text-blue-700 underline">
                        Intent {l.console.intent_id.slice(0, 8)}
                      </Link>{" "}
                      by {l.console.placed_by} ({l.console.status ?? l.console.state})
                    </>
                  ) : (
                    "no console intent"
                  )}
                </Td>
                <Td className="text-xs">
                  {l.service.href && l.service.id ? (
                    <Link href={l.service.href} className="font-mono text-blue-700 underline">
                      {l.record_kind} {l.service.id}
                    </Link>
                  ) : (
                    <span className="font-mono">{l.service.id ? `${l.record_kind} ${l.service.id}` : `ref_id ${l.service.ref_id ?? "—"}`}</span>
                  )}
                  {l.service.status ? ` (${l.service.status})` : " (not listed)"}
                </Td>
                <Td className="text-xs">{l.detail}</Td>
              </Tr>
            ))}
          </TableBody>
        </Table>
      ) : null}
    </section>
  )
}
