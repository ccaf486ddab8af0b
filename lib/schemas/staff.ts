import { z } from "zod"
import { ROLES } from "@/lib/auth/roles"

const role = z.enum(ROLES, { error: `must be one of ${ROLES.join(", ")}` })
const email = z
  .string({ error: "must be an email address" })
  .trim()
  .max(320, "at most 320 characters")
  .pipe(z.email({ error: "must be an email address like name@example.com" }))
  .transform((e) => e.toLowerCase())

export const inviteBodySchema = z.strictObject({ email, role })

export const staffPatchSchema = z
  .strictObject({
    role: role.optional(),
    status: z.enum(["active", "disabled"], { error: "must be active or disabled" }).optional(),
  })
  .refine((body) => body.role !== undefined || body.status !== undefined, { message: "give role, status or both", path: ["body"] })

export const staffEmailParamSchema = z.object({ email: z.string().max(400).transform((e) => decodeURIComponent(e).trim().toLowerCase()).pipe(z.email({ error: "must be a staff member's email" })) })

export const signInRulesSchema = z.strictObject({
  passkey_roles: z.array(role, { error: `must be a list of roles (${ROLES.join(", ")})` }).max(ROLES.length),
})

const token = z.string({ error: "must be the invitation's token" }).regex(/^[A-Za-z0-9_-]{20,100}$/, "must be the invitation's token (from its link)")

/** What @simplewebauthn/browser's startRegistration answered, and the passkey's name. */
export const invitationPasskeySchema = z.strictObject({
  name: z.string().trim().min(1, "must not be empty").max(60, "at most 60 characters"),
  response: z.looseObject({
    id: z.string().max(1024),
    rawId: z.string().max(1024),
    type: z.literal("public-key"),
    response: z.looseObject({ clientDataJSON: z.string().max(4096), attestationObject: z.string().max(16_384) }),
  }),
})

export const acceptBodySchema = z
  .strictObject({
    token,
    password: z.string({ error: "must be text" }).max(256, "must be at most 256 characters").optional(),
    passkey: invitationPasskeySchema.optional(),
  })
  .refine((body) => body.password !== undefined || body.passkey !== undefined, { message: "set a password, register a passkey, or both", path: ["password"] })

export const invitationTokenSchema = z.strictObject({ token })
