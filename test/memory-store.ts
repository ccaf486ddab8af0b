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
