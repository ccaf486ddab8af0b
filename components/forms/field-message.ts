/** "Amount must be more than 0", "Amount: at most 2 decimals": the field's name and its rule. */
export function fieldMessage(label: string, message: string | undefined): string | undefined {
  if (!message) return undefined
  return /^(is|must|was|has) /.test(message) ? `${label} ${message}` : `${label}: ${message}`
}
