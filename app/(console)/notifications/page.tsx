import type { Metadata } from "next"
import { InboxPage } from "@/components/notifications/inbox-page"
import { PreferencesForm } from "@/components/notifications/preferences-form"

export const metadata: Metadata = { title: "Notifications" }

export default function NotificationsPage() {
  return (
    <div className="space-y-8">
      <section className="space-y-3" aria-labelledby="inbox-heading">
        <h1 id="inbox-heading" className="text-2xl font-semibold">Notifications</h1>
        <p className="text-sm text-slate-700">What happened for you: approval requests waiting for you, your requests decided, passkeys added to your account. An item someone else acted on says who.</p>
        <InboxPage />
      </section>
      <section className="space-y-3" aria-labelledby="preferences-heading">
        <h2 id="preferences-heading" className="text-lg font-semibold">Your preferences</h2>
        <PreferencesForm />
      </section>
    </div>
  )
}
