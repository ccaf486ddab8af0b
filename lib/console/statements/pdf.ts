import "server-only"
import PDFDocument from "pdfkit"
import type { StatementReport } from "@/lib/console/statements/statement"
import type { Statement } from "@/lib/console/statements/types"
import { formatAmount } from "@/lib/format"

/**
 * A statement as a PDF (pdfkit, its built-in Helvetica): header, period, basis, the
 * tie-out, the per-asset summary, unexplained changes, the movements with their running
 * balance, the reconciliation's counts, and "Page N" on every page. Streamed: pages leave
 * as they are written (pdfkit writes a page out when the next begins), the movements are
 * written in batches, the event loop let go between them, and the writer waits while the
 * reader is more than HIGH_WATER chunks behind.
 */

const MARGIN = 36
const ROW = 13
const BATCH = 200
const HIGH_WATER = 64

const TIE_OUT_WORDS: Record<Statement["tie_out"], string> = {
  ties_out: "Ties out: opening + movements = closing, to the last decimal of every asset",
  difference: "Does not tie out: see the differences below",
  not_claimed: "Not claimed: an end of the period is reconstructed, not observed",
}

/** Helvetica's WinAnsi has no arrows or minus signs: the few the statement uses, written plainly. */
function plain(text: string): string {
  return text
    .replace(/→/g, "->")
    .replace(/[−–]/g, "-")
    .replace(/[^\x20-\x7E\xA0-\xFF]/g, "?")
}

const day = (iso: string) => iso.slice(0, 10)
const time = (iso: string) => `${iso.slice(0, 19).replace("T", " ")} UTC`

interface Column {
  header: string
  width: number
  align?: "right"
}

const SUMMARY: Column[] = [
  { header: "Asset", width: 70 },
  { header: "Opening", width: 110, align: "right" },
  { header: "Credits", width: 110, align: "right" },
  { header: "Debits", width: 110, align: "right" },
  { header: "Fees", width: 100, align: "right" },
  { header: "Closing", width: 110, align: "right" },
  { header: "Difference", width: 100, align: "right" },
]

const MOVEMENTS: Column[] = [
  { header: "At", width: 115 },
  { header: "Record", width: 175 },
  { header: "Asset", width: 45 },
  { header: "Amount", width: 100, align: "right" },
  { header: "Fee", width: 80, align: "right" },
  { header: "Balance", width: 110, align: "right" },
  { header: "Placed by", width: 135 },
]

export function statementPdf(statement: StatementReport, profileName: string): Response {
  const doc = new PDFDocument({ size: "A4", layout: "landscape", margin: MARGIN, bufferPages: false, info: { Title: `Statement ${profileName} ${day(statement.from)}` } })
  let page = 1
  const footer = () => {
    const bottom = doc.page.margins.bottom
    doc.page.margins.bottom = 0
    doc.font("Helvetica").fontSize(8).fillColor("#333333")
    doc.text(`Page ${page}`, MARGIN, doc.page.height - MARGIN + 10, { width: doc.page.width - 2 * MARGIN, align: "right", lineBreak: false })
    doc.page.margins.bottom = bottom
    doc.fillColor("black")
  }
  const bottomY = () => doc.page.height - MARGIN - 20
  let y = MARGIN

  const row = (columns: readonly Column[], cells: readonly string[], bold = false) => {
    if (y + ROW > bottomY()) {
      doc.addPage()
      page++
      footer()
      y = MARGIN
    }
    doc.font(bold ? "Helvetica-Bold" : "Helvetica").fontSize(8)
    let x = MARGIN
    columns.forEach((c, i) => {
      doc.text(plain(cells[i] ?? ""), x, y, { width: c.width - 4, align: c.align ?? "left", lineBreak: false, ellipsis: true, height: ROW })
      x += c.width
    })
    y += ROW
  }
  const heading = (text: string) => {
    if (y + 3 * ROW > bottomY()) {
      doc.addPage()
      page++
      footer()
      y = MARGIN
    }
    y += 6
    doc.font("Helvetica-Bold").fontSize(11).text(plain(text), MARGIN, y, { lineBreak: false })
    y += 16
  }
  const line = (text: string) => {
    doc.font("Helvetica").fontSize(9)
    const height = doc.heightOfString(plain(text), { width: doc.page.width - 2 * MARGIN })
    if (y + height > bottomY()) {
      doc.addPage()
      page++
      footer()
      y = MARGIN
    }
    doc.text(plain(text), MARGIN, y, { width: doc.page.width - 2 * MARGIN })
    y += height + 2
  }

  const s = statement
  const last = new Date(Date.parse(s.to) - 1).toISOString()
  const writeHead = () => {
    footer()
    doc.font("Helvetica-Bold").fontSize(16).text("Statement", MARGIN, y, { lineBreak: false })
    y += 22
    line(`Profile: ${profileName} (${s.profile_id})`)
    line(`Period: ${day(s.from)}${day(last) !== day(s.from) ? ` to ${day(last)}` : ""} (UTC days, ${time(s.from)} to ${time(s.to)})`)
    line(`Opening: ${s.opening_basis}${s.opening_observed_at ? ` (observed ${time(s.opening_observed_at)})` : ""}. Closing: ${s.closing_basis}${s.closing_observed_at ? ` (observed ${time(s.closing_observed_at)})` : ""}.`)
    line(`Tie-out: ${TIE_OUT_WORDS[s.tie_out]}`)
    heading("Per asset")
    row(SUMMARY, SUMMARY.map((c) => c.header), true)
    for (const a of s.assets) row(SUMMARY, [a.asset, ...[a.opening, a.credits, a.debits, a.fees, a.closing, a.difference].map((v) => formatAmount(v, a.asset))])
    if (s.unexplained.length > 0) {
      heading("Not explained by any record")
      for (const u of s.unexplained) line(`${formatAmount(u.amount, u.asset)} ${u.asset} not explained by any record between ${time(u.from)} and ${time(u.to)}`)
    }
    const r = s.reconciliation
    heading("Reconciliation with the service")
    line(`${r.console_creates} placed through the console, ${r.service_records} trades and conversions at the service, ${r.matched} agree, ${r.lines.length} findings.`)
    for (const l of r.lines) line(`${l.kind.replace(/_/g, " ")}: ${l.record_kind} ${l.service.id ?? l.service.ref_id ?? ""}${l.console ? ` (intent ${l.console.intent_id})` : ""}: ${l.detail}`)
    heading(`Movements (${s.movements.length}), oldest first`)
    row(MOVEMENTS, MOVEMENTS.map((c) => c.header), true)
  }

  // Backpressure: past HIGH_WATER chunks not yet read, the writer waits for the reader's next pull.
  let resume: (() => void) | null = null
  let cancelled = false
  const chunks = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        doc.on("data", (chunk: Buffer) => controller.enqueue(new Uint8Array(chunk)))
        doc.on("end", () => controller.close())
        doc.on("error", (error) => controller.error(error))
        void (async () => {
          try {
            writeHead()
            let written = 0
            for (const m of s.movements) {
              if (cancelled) return
              m.legs.forEach((l, i) => {
                const sign = l.direction === "DEBIT" ? "-" : "+"
                row(MOVEMENTS, [i === 0 ? time(m.at) : "", i === 0 ? m.label : "", l.asset, `${sign}${formatAmount(l.amount, l.asset)}`, formatAmount(l.fee, l.asset), formatAmount(l.balance, l.asset), i === 0 ? (m.placed_by ?? "placed elsewhere") : ""])
              })
              if (++written % BATCH === 0) {
                if ((controller.desiredSize ?? 1) <= 0) await new Promise<void>((resolve) => (resume = resolve))
                else await new Promise((resolve) => setImmediate(resolve))
              }
            }
            if (s.movements.length === 0) line("No movements in this period.")
            doc.end()
          } catch (error) {
            controller.error(error)
          }
        })()
      },
      pull() {
        const go = resume
        resume = null
        go?.()
      },
      cancel() {
        // The reader went away: the writer stops at its next batch.
        cancelled = true
        const go = resume
        resume = null
        go?.()
      },
    },
    { highWaterMark: HIGH_WATER },
  )
  const filename = `statement-${day(s.from)}-${new Date().toISOString().slice(0, 19).replace(/[-:]/g, "")}Z.pdf`
  return new Response(chunks, {
    headers: { "content-type": "application/pdf", "content-disposition": `attachment; filename="${filename}"`, "cache-control": "no-store" },
  })
}
