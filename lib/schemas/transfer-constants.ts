/**
 * The service's transfer types and statuses (paxos-v2-events-transfers: TransferType,
 * TransferStatus). No imports, so a page can read them without loading zod.
 */
export const TRANSFER_TYPES = [
  "INTERNAL_TRANSFER_DEBIT",
  "INTERNAL_TRANSFER_CREDIT",
  "CRYPTO_DEPOSIT",
  "CRYPTO_WITHDRAWAL",
  "WIRE_DEPOSIT",
  "WIRE_WITHDRAWAL",
  "SEN_DEPOSIT",
  "SEN_WITHDRAWAL",
  "BANK_DEPOSIT",
  "BANK_WITHDRAWAL",
  "PAXOS_TRANSFER_DEBIT",
  "PAXOS_TRANSFER_CREDIT",
  "SIGNET_DEPOSIT",
  "SIGNET_WITHDRAWAL",
  "CBIT_WITHDRAWAL",
  "CBIT_DEPOSIT",
  "CUBIX_DEPOSIT",
  "CUBIX_WITHDRAWAL",
  "RTP_DEPOSIT",
] as const
export const TRANSFER_STATUS_VALUES = ["PENDING", "COMPLETED", "FAILED"] as const
export type TransferType = (typeof TRANSFER_TYPES)[number]
export type TransferStatus = (typeof TRANSFER_STATUS_VALUES)[number]

/** A transfer type as people read it: WIRE_DEPOSIT → "Wire deposit". */
export function transferTypeLabel(type: string): string {
  const words = type.toLowerCase().split("_").join(" ")
  return words.charAt(0).toUpperCase() + words.slice(1)
}
