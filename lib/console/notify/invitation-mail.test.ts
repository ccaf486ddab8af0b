import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { InvitationView } from "@/lib/auth/staff"
import { mailInvitation } from "@/lib/console/notify/invitation-mail"
import { startSmtp } from "@/test/notify-receivers"

const SMTP_PASSWORD = "smtp-pass-canary-7f3a1b"
const invitation: InvitationView = {
  id: "6f1c8a2e-4b7d-4e59-9a0c-2d3e4f5a6b7c",
  email: "new.trader@example.com",
  role: "trader",
  invited_by: "admin@example.com",
  created_at: "2026-11-27T07:00:00.000Z",
  expires_at: "2026-11-28T07:00:00.000Z",
}
const LINK = "https://console.example.test/invitation/Vq3tX9bQ2mZr8LkP0wYhN4sJ6uE1aC5dF7gH2iK3lM4"

describe("an invitation's email", () => {
  let smtp: Awaited<ReturnType<typeof startSmtp>>
  beforeAll(async () => {
    smtp = await startSmtp({ user: "console", pass: SMTP_PASSWORD })
  })
  afterAll(async () => {
    await smtp?.close()
  })

  it("goes to the invited address with the one-time link, the role and the expiry; the subject carries no link", async () => {
    const sent = await mailInvitation({ url: smtp.url, from: "Treasury console <console@example.com>" }, invitation, LINK)
    expect(sent).toEqual({ emailed: true })
    const mail = smtp.mails.find((m) => m.to.includes(invitation.email))!
    expect(mail.to).toEqual([invitation.email])
    expect(mail.subject).toBe("You are invited to the treasury console")
    expect(mail.decoded).toContain(`Open it in the console: ${LINK}`)
    expect(mail.decoded).toContain(`href="${LINK}"`)
    expect(mail.decoded).toContain("admin@example.com invited you as trader")
    expect(mail.decoded).toContain("until 2026-11-28 07:00 UTC")
    expect(mail.raw).not.toContain(SMTP_PASSWORD)
  })

  it("without SMTP_URL nothing is sent and the admin is told so; a mail server that is down is a named failure without the server's URL or password", async () => {
    expect(await mailInvitation(undefined, invitation, LINK)).toEqual({ emailed: false })
    const down = await mailInvitation({ url: `smtp://console:${SMTP_PASSWORD}@127.0.0.1:9`, from: "console@example.com" }, invitation, LINK)
    expect(down.emailed).toBe(false)
    expect(down.email_error).toMatch(/could not deliver|no answer/)
    expect(down.email_error).not.toContain(SMTP_PASSWORD)
    expect(down.email_error).not.toContain("127.0.0.1")
  })
})
