import "server-only"
import { notify } from "@/lib/console/notify/outbox"
import type { Db } from "@/lib/db/client"

/** A passkey added to someone's account: they hear of it (by email too), in case it was not them. */
export async function notifyPasskeyAdded(tx: Db, passkey: { id: string; email: string; name: string }, at: Date): Promise<void> {
  await notify(tx, {
    kind: "passkey_added",
    subject: passkey.id,
    title: "A passkey was added to your account",
    detail: `A passkey named "${passkey.name}" was added to your console account at ${at.toISOString().slice(0, 16).replace("T", " ")} UTC. If this was not you, remove it on your account page and tell an admin.`,
    href: "/account",
    recipients: [passkey.email],
    at,
  })
}
