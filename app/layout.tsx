import type { Metadata } from "next"
import { headers } from "next/headers"
import type { ReactNode } from "react"
import { Providers } from "@/components/layout/providers"
import "./globals.css"

export const metadata: Metadata = {
  title: { default: "Treasury console", template: "%s · Treasury console" },
  description: "Operator console for held-quote trading and stablecoin conversions",
  robots: { index: false, follow: false },
  icons: { icon: { url: "/icon.svg", type: "image/svg+xml" } },
}

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Every page renders per request: its scripts carry the CSP nonce that proxy.ts set.
  await headers()
  return (
    <html lang="en">
      <body className="min-h-screen">
        <Providers>{children}</Providers>
      </body>
    </html>
  )
}
