/**
 * A pass every `everyMs`, counted from the end of the previous one, from `start()` until
 * `stop()`; a failed pass goes to `onError` and the next one still comes. Its timer never
 * keeps the process alive. The sandbox's background workers (settlement, webhooks) run on it.
 */
export class Repeater {
  private timer: NodeJS.Timeout | undefined
  private running = false

  constructor(
    private readonly everyMs: number,
    private readonly pass: () => Promise<unknown>,
    private readonly onError: (error: unknown) => void,
  ) {}

  get started(): boolean {
    return this.running
  }

  /** Starts the passes (the first after `everyMs`); a second call changes nothing. */
  start(): boolean {
    if (this.running) return false
    this.running = true
    this.schedule()
    return true
  }

  stop(): void {
    this.running = false
    if (this.timer) clearTimeout(this.timer)
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.pass()
        .catch(this.onError)
        .finally(() => {
          if (this.running) this.schedule()
        })
    }, this.everyMs)
    this.timer.unref()
  }
}
