"use client"

import { Button } from "@/components/ui/button"
import { Dialog } from "@/components/ui/dialog"

// The `?` overlay loads when it is first asked for: the desk's first load carries only the keys' listener (components/trade/shortcuts).

/** What a key does on the desk; listed on the `?` overlay. */
export const DESK_SHORTCUTS: readonly { keys: string[]; does: string }[] = [
  { keys: ["B"], does: "Buy the selected market (opens the ticket with the amount focused)" },
  { keys: ["S"], does: "Sell the selected market" },
  { keys: ["↑", "↓"], does: "Select the previous or next market" },
  { keys: ["1", "…", "9"], does: "Select the market in that row of the grid" },
  { keys: ["U"], does: "In the amount: switch its unit (BTC ↔ USD); the desk remembers it per market" },
  { keys: ["Enter"], does: "In the amount: review the order; in the review: confirm it" },
  { keys: ["Esc"], does: "Close the review without sending" },
  { keys: ["?"], does: "Show this list" },
]

/** The `?` overlay: the desk's keys, in a modal dialog (Escape or Close leaves it). */
export function ShortcutsHelp({ open, onClose, canTrade }: { open: boolean; onClose: () => void; canTrade: boolean }) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title="Keyboard shortcuts"
      footer={
        <Button variant="secondary" onClick={onClose} data-autofocus>
          Close
        </Button>
      }
    >
      <table className="w-full text-left text-sm" data-testid="shortcuts">
        <caption className="sr-only">Keys of the trade desk</caption>
        <thead className="text-xs uppercase text-slate-600">
          <tr>
            <th scope="col" className="py-1 pr-4">
              Key
            </th>
            <th scope="col" className="py-1">
              Does
            </th>
          </tr>
        </thead>
        <tbody>
          {DESK_SHORTCUTS.filter((s) => canTrade || !["B", "S", "Enter", "Esc"].includes(s.keys[0] ?? "")).map((s) => (
            <tr key={s.does} className="border-t border-slate-100">
              <td className="py-1 pr-4 whitespace-nowrap">
                {s.keys.map((k) => (
                  <kbd key={k} className="mr-1 rounded border border-slate-300 bg-slate-50 px-1.5 font-mono text-xs">
                    {k}
                  </kbd>
                ))}
              </td>
              <td className="py-1">{s.does}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="mt-3 text-xs text-slate-600">Shortcuts are off while you type in a field.</p>
    </Dialog>
  )
}
