import "server-only"
import { randomUUID } from "node:crypto"
import type { Db } from "@/lib/db/client"
import { sandboxDeposits } from "@/lib/db/schema"
import { toDecimal } from "@/lib/money"
import type { SandboxDeposit } from "@/lib/schemas/sandbox-tools"
import { creditFunds } from "@/lib/sandbox/ledger"
import type { ProfileDirectory } from "@/lib/sandbox/profiles"

interface DepositDeps {
  db: Db
  now: () => Date
  profiles: ProfileDirectory
}

/** Sandbox funding: a deposit credits a profile at once and is kept as a customer activity. */
export class Deposits {
  constructor(private readonly deps: DepositDeps) {}

  /** POST /v2/sandbox/profiles/{profile_id}/deposit: the activity's id. */
  async create(clientId: string, profileId: string, input: SandboxDeposit): Promise<{ activity_id: string }> {
    const profile = await this.deps.profiles.require(profileId)
    const now = this.deps.now()
    const activityId = randomUUID()
    const amount = toDecimal(input.amount)
    await this.deps.db.transaction(async (tx) => {
      await tx.insert(sandboxDeposits).values({
        id: activityId,
        clientId,
        profileId: profile.id,
        asset: input.asset,
        amount: amount.toFixed(),
        cryptoNetwork: input.crypto_network ?? null,
        cryptoAddress: input.crypto_address ?? null,
        createdAt: now,
      })
      await creditFunds(tx, profile.id, input.asset, amount, now)
    })
    return { activity_id: activityId }
  }
}
