import "server-only"
import nodemailer from "nodemailer"
import { Webhook } from "standardwebhooks"

/**
 * The channels a delivery goes out on: email through SMTP (nodemailer), a chat tool's
 * incoming webhook (Slack-compatible: `text` and `blocks`), and a generic webhook signed
 * per Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`). What is
 * sent is the notification's title, detail and deep link, never a secret; a failure is
 * described by an HTTP status or an error code, never by the URL (it may hold a token).
 */

export interface Outgoing {
  /** The delivery's id: the same on every attempt, so a receiver drops repeats. */
  deliveryId: string
  notificationId: string
  kind: string
  title: string
  detail: string
  /** The deep link: the console's public URL and the record's path. */
  link: string
  at: Date
  /** The email's last line; by default the notification's id and where to change what one receives. */
  footer?: string
}

/** A failure safe to keep and show: no URL, no credentials. */
export class DeliveryError extends Error {
  override name = "DeliveryError"
}

export const SEND_TIMEOUT_MS = 10_000

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c)
}

function failure(error: unknown): DeliveryError {
  if (error instanceof DeliveryError) return error
  const e = error as { name?: string; code?: string; responseCode?: number }
  if (e?.name === "TimeoutError" || e?.name === "AbortError") return new DeliveryError(`no answer within ${SEND_TIMEOUT_MS / 1000} s`)
  const cause = (error as { cause?: { code?: string } })?.cause
  const code = e?.code ?? cause?.code
  if (e?.responseCode) return new DeliveryError(`mail server answered ${e.responseCode}${code ? ` (${code})` : ""}`)
  return new DeliveryError(code ? `could not deliver (${code})` : `could not deliver (${e?.name ?? "error"})`)
}

type Transport = ReturnType<typeof nodemailer.createTransport>
const transports = new Map<string, Transport>()

export async function sendEmail(smtp: { url: string; from: string }, to: string, out: Outgoing): Promise<void> {
  let transport = transports.get(smtp.url)
  if (!transport) transports.set(smtp.url, (transport = nodemailer.createTransport(smtp.url, { connectionTimeout: SEND_TIMEOUT_MS, socketTimeout: SEND_TIMEOUT_MS })))
  const footer = out.footer ?? `Notification ${out.notificationId}. Change what you receive on the console's /notifications page.`
  const text = `${out.title}\n\n${out.detail}\n\nOpen it in the console: ${out.link}\n\n${footer}\n`
  const html = `<!doctype html><html><body><p><strong>${escapeHtml(out.title)}</strong></p><p>${escapeHtml(out.detail)}</p><p><a href="${escapeHtml(out.link)}">Open it in the console</a></p><p style="color:#666;font-size:12px">${escapeHtml(footer)}</p></body></html>`
  try {
    await transport.sendMail({
      from: smtp.from,
      to,
      subject: out.title,
      text,
      html,
      messageId: `<${out.deliveryId}@treasury-console>`,
      headers: { "X-Notification-Id": out.notificationId, "X-Delivery-Id": out.deliveryId },
    })
  } catch (error) {
    throw failure(error)
  }
}

async function post(url: string, body: string, headers: Record<string, string>, signal?: AbortSignal): Promise<void> {
  let response: Response
  try {
    const timeout = AbortSignal.timeout(SEND_TIMEOUT_MS)
    response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body,
      redirect: "error",
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    })
    await response.arrayBuffer().catch(() => undefined)
  } catch (error) {
    throw failure(error)
  }
  if (!response.ok) throw new DeliveryError(`receiver answered HTTP ${response.status}`)
}

/** The chat message: plain text (for notifications and old clients) and blocks. */
export function chatPayload(out: Outgoing): { text: string; blocks: unknown[] } {
  return {
    text: `${out.title}: ${out.detail} ${out.link}`,
    blocks: [
      { type: "section", text: { type: "mrkdwn", text: `*${out.title}*\n${out.detail}` } },
      { type: "actions", elements: [{ type: "button", text: { type: "plain_text", text: "Open in the console" }, url: out.link }] },
      { type: "context", elements: [{ type: "mrkdwn", text: `Notification ${out.notificationId}` }] },
    ],
  }
}

export function sendChat(url: string, out: Outgoing, signal?: AbortSignal): Promise<void> {
  return post(url, JSON.stringify(chatPayload(out)), { "x-delivery-id": out.deliveryId }, signal)
}

/** The webhook's body, per Standard Webhooks: `type`, `timestamp` and `data`. */
export function webhookPayload(out: Outgoing): { type: string; timestamp: string; data: Record<string, string> } {
  return {
    type: `notification.${out.kind}`,
    timestamp: out.at.toISOString(),
    data: { notification_id: out.notificationId, title: out.title, detail: out.detail, url: out.link },
  }
}

export function sendWebhook(url: string, secret: string, out: Outgoing, signal?: AbortSignal, now = new Date()): Promise<void> {
  const body = JSON.stringify(webhookPayload(out))
  const signature = new Webhook(secret).sign(out.deliveryId, now, body)
  return post(url, body, { "webhook-id": out.deliveryId, "webhook-timestamp": String(Math.floor(now.getTime() / 1000)), "webhook-signature": signature }, signal)
}
