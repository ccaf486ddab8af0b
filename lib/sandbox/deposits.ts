import "server-only"
import type { Db } from "@/lib/db/client"
import { type SandboxTransferType, sandboxDeposits } from "@/lib/db/schema"
import { toDecimal } from "@/lib/money"
import type { SandboxDeposit } from "@/lib/schemas/sandbox-tools"
import type { SandboxFiatDeposit } from "@/lib/schemas/events-transfers"
import { type Tx, creditFunds } from "@/lib/sandbox/ledger"
import { timeOrderedId } from "@/lib/sandbox/ids"
import { badRequest } from "@/lib/sandbox/problems"
import type { ProfileDirectory } from "@/lib/sandbox/profiles"
import type { SettingsStore } from "@/lib/sandbox/settings"
import { finishTransfer, insertTransfer } from "@/lib/sandbox/transfers"

interface DepositDeps {
  db: Db
  now: () => Date
  profiles: ProfileDirectory
  settings: SettingsStore
}

/** The deposit transfer type of each fiat network of the reference's FiatNetworkInstructions. */
const FIAT_NETWORK_TYPES: Record<keyof SandboxFiatDeposit["fiat_network_instructions"], SandboxTransferType> = {
  wire: "WIRE_DEPOSIT",
  cbit: "CBIT_DEPOSIT",
  cubix: "CUBIX_DEPOSIT",
  rtp: "RTP_DEPOSIT",
  dbs_act: "BANK_DEPOSIT",
  scb: "BANK_DEPOSIT",
}

interface DepositInput {
  profileId: string
  asset: string
  amount: string
  type: SandboxTransferType
  cryptoNetwork?: string | undefined
  cryptoAddress?: string | undefined
  memo?: string | undefined
}

/**
 * Sandbox funding. A deposit is a transfer (CRYPTO_DEPOSIT, WIRE_DEPOSIT, …) that goes
 * PENDING → COMPLETED, crediting the profile on completion, with an event for each status.
 * It completes in the request when the `deposit_delay_ms` setting is 0 (the default), else
 * the settlement worker completes it once it is that old.
 */
export class Deposits {
  constructor(private readonly deps: DepositDeps) {}

  /** POST /v2/sandbox/profiles/{profile_id}/deposit: the activity's id (the transfer's id too). */
  async create(clientId: string, profileId: string, input: SandboxDeposit): Promise<{ activity_id: string }> {
    const profile = await this.deps.profiles.require(profileId)
    const id = await this.deposit(clientId, {
      profileId: profile.id,
      asset: input.asset,
      amount: input.amount,
      type: input.crypto_network ? "CRYPTO_DEPOSIT" : "WIRE_DEPOSIT",
      cryptoNetwork: input.crypto_network,
      cryptoAddress: input.crypto_address,
    })
    return { activity_id: id }
  }

  /**
   * POST /v2/sandbox/fiat-deposits. The sandbox has no Fiat Deposit Instructions: a
   * profile's memo is its id, so `memo_id` names the profile credited.
   */
  async createFiat(clientId: string, input: SandboxFiatDeposit): Promise<Record<string, never>> {
    const profile = await this.deps.profiles.find(input.memo_id)
    if (!profile) throw badRequest({ memo_id: "matches no deposit memo (in the sandbox, a profile's memo is its id)" })
    if (toDecimal(input.amount).isZero()) throw badRequest({ amount: "must be more than 0" })
    const network = (Object.keys(FIAT_NETWORK_TYPES) as (keyof typeof FIAT_NETWORK_TYPES)[]).find((k) => input.fiat_network_instructions[k] !== undefined)
    await this.deposit(clientId, {
      profileId: profile.id,
      asset: input.asset,
      amount: input.amount,
      type: FIAT_NETWORK_TYPES[network ?? "wire"],
      memo: input.memo_id,
    })
    return {}
  }

  private async deposit(clientId: string, input: DepositInput): Promise<string> {
    const now = this.deps.now()
    const { deposit_delay_ms: delay } = await this.deps.settings.get()
    const id = timeOrderedId(now)
    const amount = toDecimal(input.amount)
    await this.deps.db.transaction(async (tx) => {
      await tx.insert(sandboxDeposits).values({
        id,
        clientId,
        profileId: input.profileId,
        asset: input.asset,
        amount: amount.toFixed(),
        cryptoNetwork: input.cryptoNetwork ?? null,
        cryptoAddress: input.cryptoAddress ?? null,
        createdAt: now,
      })
      await insertTransfer(
        tx,
        {
          id,
          clientId,
          profileId: input.profileId,
          type: input.type,
          direction: "CREDIT",
          status: "PENDING",
          asset: input.asset,
          amount: amount.toFixed(),
          cryptoNetwork: input.cryptoNetwork ?? null,
          cryptoAddress: input.cryptoAddress ?? null,
          memo: input.memo ?? null,
        },
        now,
      )
      if (delay === 0) await complete(tx, id, now)
    })
    return id
  }

  /** The settlement worker: a deposit that fell due completes and credits its profile. */
  settle(id: string, now: Date): Promise<boolean> {
    return this.deps.db.transaction((tx) => complete(tx, id, now))
  }
}

async function complete(tx: Tx, id: string, now: Date): Promise<boolean> {
  const row = await finishTransfer(tx, id, "COMPLETED", now)
  if (!row) return false
  await creditFunds(tx, row.profileId, row.asset, toDecimal(row.amount), now)
  return true
}

/** Deposit transfers (credits from outside), the ones the settlement worker completes. */
export const DEPOSIT_TYPES: SandboxTransferType[] = ["CRYPTO_DEPOSIT", "WIRE_DEPOSIT", "CBIT_DEPOSIT", "CUBIX_DEPOSIT", "RTP_DEPOSIT", "BANK_DEPOSIT"]
