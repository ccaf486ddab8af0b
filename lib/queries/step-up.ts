"use client"

import { ApiProblemError } from "@/lib/queries/api"

/**
 * Step-up in the browser: when the server answers a decision with 403 step_up_required
 * (and this person has a passkey), the passkey signs the challenge it sent, through
 * navigator.credentials (via @simplewebauthn/browser, loaded only then).
 */

interface StepUpAsk {
  options: Record<string, unknown>
  passkeys: number
}

/** The challenge to sign, when `error` is a step_up_required this person can answer. */
export function stepUpAsked(error: unknown): StepUpAsk | null {
  if (!(error instanceof ApiProblemError) || error.problem.code !== "step_up_required") return null
  const stepUp = error.problem.meta?.step_up as Partial<StepUpAsk> | undefined
  if (!stepUp?.options || !stepUp.passkeys) return null
  return { options: stepUp.options, passkeys: stepUp.passkeys }
}

/** The person's passkey signs the challenge; a refusal or cancel becomes an error the form shows. */
export async function signWithPasskey(ask: StepUpAsk): Promise<unknown> {
  const { startAuthentication } = await import("@simplewebauthn/browser")
  try {
    return await startAuthentication({ optionsJSON: ask.options as unknown as Parameters<typeof startAuthentication>[0]["optionsJSON"] })
  } catch (error) {
    throw new Error(`Your passkey was not used (${error instanceof Error ? error.message : "cancelled"}); nothing was decided. Try again.`, { cause: error })
  }
}

/**
 * Sends a decision; when the server asks for step-up, the passkey signs its challenge and
 * the decision goes once more with the assertion (any other refusal is thrown as it came).
 */
export async function withStepUp<T>(send: (stepUp?: unknown) => Promise<T>): Promise<T> {
  try {
    return await send()
  } catch (error) {
    const ask = stepUpAsked(error)
    if (!ask) throw error
    return send(await signWithPasskey(ask))
  }
}
