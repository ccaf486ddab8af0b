import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto"
import { isoCBOR } from "@simplewebauthn/server/helpers"

/**
 * A software authenticator for tests: makes a real P-256 credential (attestation `none`)
 * and real signed assertions, as a security key would, so the server's checks (challenge,
 * origin, RP ID, user verification, signature, counter) run for real.
 */

const b64u = (bytes: Uint8Array | Buffer) => Buffer.from(bytes).toString("base64url")
const sha256 = (data: Uint8Array | string) => createHash("sha256").update(data).digest()

export interface SoftCredential {
  id: string
  rpId: string
  privateKey: KeyObject
  counter: number
}

function coseKey(publicKey: KeyObject): Uint8Array {
  const jwk = publicKey.export({ format: "jwk" })
  const map = new Map<number, number | Uint8Array>([
    [1, 2],
    [3, -7],
    [-1, 1],
    [-2, new Uint8Array(Buffer.from(jwk.x!, "base64url"))],
    [-3, new Uint8Array(Buffer.from(jwk.y!, "base64url"))],
  ])
  return isoCBOR.encode(map)
}

function flags(uv: boolean, attested: boolean): number {
  return 0x01 | (uv ? 0x04 : 0) | (attested ? 0x40 : 0)
}

function counterBytes(counter: number): Buffer {
  const out = Buffer.alloc(4)
  out.writeUInt32BE(counter)
  return out
}

/** Answers registration options: the credential kept here, and the response the browser would send. */
export function register(options: { challenge: string; rp: { id?: string } }, origin: string, rpId = options.rp.id ?? new URL(origin).hostname) {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" })
  const id = randomBytes(16)
  const clientDataJSON = Buffer.from(JSON.stringify({ type: "webauthn.create", challenge: options.challenge, origin, crossOrigin: false }))
  const authData = Buffer.concat([sha256(rpId), Buffer.from([flags(true, true)]), counterBytes(0), Buffer.alloc(16), Buffer.from([0, id.length]), id, Buffer.from(coseKey(publicKey))])
  const attestationObject = isoCBOR.encode(new Map<string, unknown>([["fmt", "none"], ["attStmt", new Map()], ["authData", new Uint8Array(authData)]]) as never)
  const credential: SoftCredential = { id: b64u(id), rpId, privateKey, counter: 0 }
  const response = {
    id: credential.id,
    rawId: credential.id,
    type: "public-key" as const,
    clientExtensionResults: {},
    response: { clientDataJSON: b64u(clientDataJSON), attestationObject: b64u(attestationObject), transports: ["internal"] },
  }
  return { credential, response }
}

/** Signs `challenge` with `credential` (its counter moves on), as navigator.credentials.get would answer. */
export function assert(credential: SoftCredential, challenge: string, origin: string, options: { userVerified?: boolean; rpId?: string } = {}) {
  credential.counter += 1
  const clientDataJSON = Buffer.from(JSON.stringify({ type: "webauthn.get", challenge, origin, crossOrigin: false }))
  const authData = Buffer.concat([sha256(options.rpId ?? credential.rpId), Buffer.from([flags(options.userVerified ?? true, false)]), counterBytes(credential.counter)])
  const signature = sign("sha256", Buffer.concat([authData, sha256(clientDataJSON)]), credential.privateKey)
  return {
    id: credential.id,
    rawId: credential.id,
    type: "public-key" as const,
    clientExtensionResults: {},
    response: { clientDataJSON: b64u(clientDataJSON), authenticatorData: b64u(authData), signature: b64u(signature) },
  }
}
