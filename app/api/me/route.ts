import { withStaff } from "@/lib/console/with-staff"
import { serviceInfo } from "@/lib/console/service-info"

// GET /api/me - who is signed in, and which service the console talks to
export const GET = withStaff("viewer", ({ staff }) => {
  const service = serviceInfo()
  return Promise.resolve(Response.json({ email: staff.email, role: staff.role, mode: service.mode, service_host: service.host }))
})
