/**
 * sessionStorage key of a trade submission waiting at (or sent from) the confirm step. On
 * its own so the desk can look for one before it loads the store's schema (and zod).
 */
export const PENDING_KEY = "console.trade.pending"
