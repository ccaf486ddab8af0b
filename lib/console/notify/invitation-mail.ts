import "server-only"
import type { InvitationView } from "@/lib/auth/staff"
import { DeliveryError, sendEmail } from "@/lib/console/notify/channels"

/**
 * An invitation's email, sent when mail is configured (SMTP_URL) at the moment the admin
 * invites: the one-time link goes straight to the invited address and is never written to
 * the outbox (the console keeps only the link's hash). A failure is answered to the admin,
 * who still has the link to pass on; it is never retried, since nothing keeps the link.
 */
export async function mailInvitation(
  smtp: { url: string; from: string } | undefined,
  invitation: InvitationView,
  link: string,
): Promise<{ emailed: boolean; email_error?: string }> {
  if (!smtp) return { emailed: false }
  try {
    await sendEmail(smtp, invitation.email, {
      deliveryId: invitation.id,
      notificationId: invitation.id,
      kind: "staff_invited",
      title: "You are invited to the treasury console",
      detail: `${invitation.invited_by} invited you as ${invitation.role}. The link works once, until ${invitation.expires_at.slice(0, 16).replace("T", " ")} UTC; it asks you to set a password or add a passkey.`,
      link,
      at: new Date(invitation.created_at),
      footer: "If you did not expect this invitation, ignore this email: nothing happens unless the link is used.",
    })
    return { emailed: true }
  } catch (error) {
    return { emailed: false, email_error: error instanceof DeliveryError ? error.message : "could not deliver" }
  }
}
