/**
 * The execute form and the record card load on demand: the form (react-hook-form, the
 * shared zod schemas) is only needed once a trader picks a quote, the card once a trade
 * is placed. Hovering or focusing a quote's button starts loading the form early.
 */
export const loadExecutePanel = () => import("@/components/trade/execute-panel")
export const loadExecutionRecordCard = () => import("@/components/executions/execution-record-card")
export const loadPendingSubmission = () => import("@/components/trade/pending-submission")

export function preloadExecutePanel(): void {
  void loadExecutePanel().catch(() => undefined)
}
