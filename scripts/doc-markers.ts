// Generated parts of the docs sit between two HTML comments, `<!-- name:begin -->` and
// `<!-- name:end -->`; the text around them is written by hand.

export function markers(name: string): { begin: string; end: string } {
  return { begin: `<!-- ${name}:begin -->`, end: `<!-- ${name}:end -->` }
}

/** `text` with what lies between the two markers replaced by `body`; throws when they are missing. */
export function replaceBetweenMarkers(text: string, name: string, body: string): string {
  const { begin, end } = markers(name)
  const from = text.indexOf(begin)
  const to = text.indexOf(end)
  if (from < 0 || to < from || text.indexOf(begin, from + 1) >= 0) throw new Error(`expected one ${begin} followed by ${end}`)
  return `${text.slice(0, from + begin.length)}\n${body.trim()}\n${text.slice(to)}`
}
