/** sessionStorage's three methods over a Map: what the kept-submission stores read and write in unit tests. */
export class MemoryStore {
  map = new Map<string, string>()
  getItem(key: string) {
    return this.map.get(key) ?? null
  }
  setItem(key: string, value: string) {
    this.map.set(key, value)
  }
  removeItem(key: string) {
    this.map.delete(key)
  }
}

/** A storage that refuses everything (private mode, a full quota): the stores must shrug it off. */
export const BROKEN_STORE = {
  getItem: (): string | null => {
    throw new Error("blocked")
  },
  setItem: (): void => {
    throw new Error("full")
  },
  removeItem: (): void => {
    throw new Error("blocked")
  },
}
