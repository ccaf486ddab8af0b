import "server-only"
import { type SQL, eq, gt, gte, ilike, inArray, lt, lte } from "drizzle-orm"
import type { Db } from "@/lib/db/client"
import { type SandboxProfileRow, sandboxBalances, sandboxProfiles } from "@/lib/db/schema"
import { isUuid, readPage } from "@/lib/sandbox/cursor"
import { wireProfile } from "@/lib/sandbox/format"
import { badRequest, notFound } from "@/lib/sandbox/problems"

/**
 * The profiles the sandbox starts with, and their opening balances. Seeding runs on
 * every start and only ever adds what is missing (by nickname), so trades survive.
 * Every market's base asset is funded, so every market can be traded both ways.
 */
export const SEED_PROFILES: readonly {
  nickname: string
  type: "DEFAULT" | "NORMAL"
  description: string
  balances: Readonly<Record<string, string>>
}[] = [
  {
    nickname: "Treasury",
    type: "DEFAULT",
    description: "Firm treasury: strategic holdings and fiat reserves",
    balances: {
      USD: "2500000.00",
      EUR: "800000.00",
      SGD: "600000.00",
      BTC: "42.5",
      ETH: "640",
      PAXG: "250",
      USDP: "1500000",
      PYUSD: "750000",
      USDG: "500000",
      BCH: "300",
      LTC: "2000",
      LINK: "25000",
      MATIC: "400000",
      AAVE: "900",
      UNI: "30000",
    },
  },
  {
    nickname: "Client omnibus",
    type: "NORMAL",
    description: "Pooled client assets held for brokerage customers",
    balances: {
      USD: "850000.00",
      EUR: "120000.00",
      SGD: "90000.00",
      BTC: "12.75",
      ETH: "180.5",
      PAXG: "40",
      USDP: "300000",
      PYUSD: "200000",
      USDG: "150000",
      BCH: "60",
      LTC: "450",
      LINK: "5000",
      MATIC: "80000",
      AAVE: "150",
      UNI: "6000",
    },
  },
  {
    nickname: "Operations float",
    type: "NORMAL",
    description: "Day-to-day operating liquidity",
    balances: {
      USD: "150000.00",
      EUR: "25000.00",
      SGD: "20000.00",
      BTC: "1.5",
      ETH: "20",
      PAXG: "5",
      USDP: "50000",
      PYUSD: "25000",
      USDG: "25000",
      BCH: "10",
      LTC: "80",
      LINK: "800",
      MATIC: "15000",
      AAVE: "25",
      UNI: "1200",
    },
  },
]

export async function seedProfiles(db: Db, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    for (const [index, seed] of SEED_PROFILES.entries()) {
      const [created] = await tx
        .insert(sandboxProfiles)
        .values({
          nickname: seed.nickname,
          type: seed.type,
          description: seed.description,
          // A millisecond apart, so the list keeps this order.
          createdAt: new Date(now.getTime() + index),
        })
        .onConflictDoNothing({ target: sandboxProfiles.nickname })
        .returning({ id: sandboxProfiles.id })
      if (!created) continue
      await tx.insert(sandboxBalances).values(
        Object.entries(seed.balances).map(([asset, available]) => ({
          profileId: created.id,
          asset,
          available,
          trading: "0",
          updatedAt: now,
        })),
      )
    }
  })
}

export interface ProfileListQuery {
  limit?: number
  order?: "ASC" | "DESC"
  page_cursor?: string
  nickname?: string
  ids?: string[]
  "created_at.lt"?: string
  "created_at.lte"?: string
  "created_at.eq"?: string
  "created_at.gte"?: string
  "created_at.gt"?: string
}

export class ProfileDirectory {
  constructor(private readonly db: Db) {}

  /** The profile, by id or the alias "default"; 404 when there is none. */
  async require(id: string, what = "profile"): Promise<SandboxProfileRow> {
    const found = await this.find(id)
    if (!found) throw notFound(`${what} not found with id ${id}`)
    return found
  }

  async find(id: string): Promise<SandboxProfileRow | null> {
    const where =
      id === "default" ? eq(sandboxProfiles.type, "DEFAULT") : isUuid(id) ? eq(sandboxProfiles.id, id.toLowerCase()) : null
    if (!where) return null
    const [row] = await this.db.select().from(sandboxProfiles).where(where).limit(1)
    return row ?? null
  }

  /** GET /v2/profiles: default order ASC by created_at, limit default and max 1000. */
  async list(query: ProfileListQuery): Promise<{ items: Record<string, string>[]; next_page_cursor?: string }> {
    const t = sandboxProfiles
    const filters: SQL[] = []
    if (query.nickname) filters.push(ilike(t.nickname, `${query.nickname.replace(/[\\%_]/g, (c) => `\\${c}`)}%`))
    if (query.ids && query.ids.length > 0) {
      if (query.ids.length > 100) throw badRequest({ ids: "at most 100" })
      filters.push(inArray(t.id, query.ids.filter(isUuid).map((i) => i.toLowerCase())))
    }
    const comparisons = { lt, lte, eq, gte, gt } as const
    for (const op of Object.keys(comparisons) as (keyof typeof comparisons)[]) {
      const value = query[`created_at.${op}`]
      if (value === undefined) continue
      const date = new Date(value)
      if (Number.isNaN(date.getTime())) throw badRequest({ [`created_at.${op}`]: "must be an RFC 3339 date-time" })
      filters.push(comparisons[op](t.createdAt, date))
    }
    const page = await readPage(this.db, t, filters, { page_cursor: query.page_cursor, order: query.order ?? "ASC", limit: query.limit ?? 1000 })
    return { ...page, items: page.items.map(wireProfile) }
  }
}
