/**
 * The console's logo: a plain <img> of the SVG. next/image would add about 5 kB (gzip) of
 * client code to every page for an image it does not resize (an SVG, `unoptimized`).
 */
export function Logo({ size, className }: { size: number; className?: string }) {
  return <img src="/logo.svg" alt="" width={size} height={size} fetchPriority="high" className={className} />
}
