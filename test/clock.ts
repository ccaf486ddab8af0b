/**
 * The one fake clock of the test suites. Frozen (the default), time moves only by
 * `advance` and by its own timers: `sleep` and request timeouts register timers, and once
 * every pending promise has settled (a few event-loop turns with nothing new) the clock
 * jumps to the earliest and fires it, so concurrent sleepers wake in order without any
 * real waiting. Running (`running: true`, or after `thaw`), it follows the wall clock from
 * where it stands, for code that also waits on real timers (the sandbox's settlement
 * worker, a real database); `advance` still jumps it forward.
 */

interface Timer {
  at: number
  seq: number
  fire: () => void
  cleared: boolean
}

export class FakeClock {
  /** The clock's time when `anchor` was taken (running), or its time (frozen). */
  private base: number
  /** The wall-clock time the running clock counts from; undefined while frozen. */
  private anchor: number | undefined
  private seq = 0
  private timers: Timer[] = []
  private pumping = false
  /** Every `sleep` asked for, in order. */
  readonly sleeps: number[] = []

  constructor(options: { start?: number; running?: boolean } = {}) {
    this.base = options.start ?? (options.running ? Date.now() : Date.UTC(2026, 0, 1, 12, 0, 0))
    this.anchor = options.running ? Date.now() : undefined
  }

  /** Milliseconds since the epoch. */
  now = (): number => (this.anchor === undefined ? this.base : this.base + (Date.now() - this.anchor))

  /** The same instant as a Date. */
  date = (): Date => new Date(this.now())

  sleep = (ms: number): Promise<void> => {
    this.sleeps.push(ms)
    return new Promise<void>((resolve) => this.add(ms, resolve))
  }

  timeout = (ms: number) => {
    const controller = new AbortController()
    const timer = this.add(ms, () => controller.abort(new DOMException("The operation timed out.", "TimeoutError")))
    return {
      signal: controller.signal,
      clear: () => {
        timer.cleared = true
      },
    }
  }

  /** Moves time forward by hand, firing the timers that fall due on the way. */
  advance(ms: number): void {
    const target = this.now() + ms
    for (;;) {
      const next = this.earliest()
      if (!next || next.at > target) break
      this.moveTo(Math.max(this.now(), next.at))
      this.remove(next)
      next.fire()
    }
    this.moveTo(target)
  }

  /** Stops the clock: everything stamped until `thaw` shares one time. */
  freeze(): void {
    this.base = this.now()
    this.anchor = undefined
  }

  /** Lets a frozen clock follow the wall clock again, from where it stands. */
  thaw(): void {
    if (this.anchor !== undefined) return
    this.anchor = Date.now()
  }

  private moveTo(time: number): void {
    this.base = time
    if (this.anchor !== undefined) this.anchor = Date.now()
  }

  private earliest(): Timer | undefined {
    this.timers = this.timers.filter((t) => !t.cleared)
    let best: Timer | undefined
    for (const t of this.timers) if (!best || t.at < best.at || (t.at === best.at && t.seq < best.seq)) best = t
    return best
  }

  private remove(timer: Timer): void {
    this.timers = this.timers.filter((t) => t !== timer)
  }

  private add(ms: number, fire: () => void): Timer {
    const timer: Timer = { at: this.now() + Math.max(0, ms), seq: this.seq++, fire, cleared: false }
    this.timers.push(timer)
    if (!this.pumping) {
      this.pumping = true
      void this.pump()
    }
    return timer
  }

  private async pump(): Promise<void> {
    for (;;) {
      // Let everything that can progress without time progress first.
      for (let i = 0; i < 8; i++) await new Promise<void>((resolve) => setImmediate(resolve))
      const next = this.earliest()
      if (!next) {
        this.pumping = false
        return
      }
      this.moveTo(Math.max(this.now(), next.at))
      this.remove(next)
      next.fire()
    }
  }
}
