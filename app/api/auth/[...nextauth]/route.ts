import NextAuth from "next-auth"
import { authOptions } from "@/lib/auth/options"

// GET/POST /api/auth/* - next-auth's own endpoints (sign-in, session, sign-out)
async function handler(req: Request, ctx: { params: Promise<{ nextauth: string[] }> }): Promise<Response> {
  const auth = NextAuth(authOptions()) as (req: Request, ctx: { params: { nextauth: string[] } }) => Promise<Response>
  return auth(req, { params: await ctx.params })
}

export { handler as GET, handler as POST }
