/** A new staff password's length bounds (the accept page shows them; lib/auth/passwords.ts enforces them with the strength check). */
export const PASSWORD_MIN_LENGTH = 12
export const PASSWORD_MAX_LENGTH = 256
