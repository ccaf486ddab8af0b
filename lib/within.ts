import "server-only"
import { errorKind, log } from "@/lib/log"

/** `work`'s answer, or null when it fails (logged as `failure`) or takes longer than `timeoutMs`; never throws. */
export async function withinOrNull<T>(work: () => Promise<T>, timeoutMs: number, failure: string): Promise<T | null> {
  let timer: ReturnType<typeof setTimeout> | undefined
  try {
    return await Promise.race([
      work(),
      new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), timeoutMs)
      }),
    ])
  } catch (error) {
    log.warn(failure, { error: errorKind(error) })
    return null
  } finally {
    clearTimeout(timer)
  }
}
