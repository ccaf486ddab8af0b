import "server-only"
import { intentByRef } from "@/lib/console/intents"
import type { ConsoleDeps } from "@/lib/console/operations"
import { inFlight, notFound, notPlaced } from "@/lib/problem"
import type { QuoteExecution } from "@/lib/schemas/records"

/**
 * GET /api/profiles/{profileId}/quote-executions/lookup?ref_id=: what became of an
 * execution the console was asked to place, from its intent log (the service cannot list
 * executions by ref_id).
 *
 * - placed (SUCCEEDED): the record, fresh from the service;
 * - refused (FAILED: the service certainly did not apply it): 404 `not_placed` (`meta.placed:
 *   false`), the one answer that lets a form start a new submission;
 * - on its way, unknown, or waiting for approval: 409 `in_flight` (`meta.in_flight: true`);
 * - no intent at all: 404 `not_found` (`meta.placed: "unknown"`; the request may not have reached
 *   the console yet, or another client placed it): the form keeps asking the service.
 */
export async function lookupExecutionByRefId(deps: ConsoleDeps, profileId: string, refId: string): Promise<QuoteExecution> {
  const intent = await intentByRef(deps.db, "create_execution", refId)
  if (!intent || (intent.profileId !== null && intent.profileId !== profileId)) {
    throw notFound(`This console has no execution with ref_id “${refId}” for this profile; another client may have placed one.`, { placed: "unknown" })
  }
  if (intent.state === "SUCCEEDED" && intent.recordId) return deps.upstream.getQuoteExecution(profileId, intent.recordId)
  if (intent.state === "FAILED") {
    const title = typeof intent.problem?.title === "string" ? intent.problem.title : "refused"
    throw notPlaced(`The execution with ref_id “${refId}” was not placed: the service refused it (${title}).`, { intent_id: intent.id })
  }
  throw inFlight(
    intent.state === "AWAITING_APPROVAL"
      ? `The execution with ref_id “${refId}” is waiting for approval.`
      : `The execution with ref_id “${refId}” is still being placed, or its outcome is not known yet; retry that submission, or look again in a minute.`,
    { intent_id: intent.id },
  )
}
