/**
 * The exclusive upper bound that makes "at or before `at`" hold at the resolution of a JS
 * Date. The database stamps rows in microseconds while a Date has milliseconds: a row
 * stamped 12:00:00.123456 is at 12:00:00.123 for the console, so `<= .123` must take it,
 * which a plain `<=` against .123000 does not.
 */
export function throughMillisecond(at: Date): Date {
  return new Date(at.getTime() + 1)
}
