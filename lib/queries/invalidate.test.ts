import { InfiniteQueryObserver, QueryClient, QueryObserver, type InfiniteData } from "@tanstack/react-query"
import { describe, expect, it } from "vitest"
import { invalidatePushed } from "@/lib/queries/invalidate"

interface Page {
  rows: string[]
  next: number | null
}

/** A list of 2 pages whose fetches the test answers by hand, in the order it chooses. */
function slowList() {
  const waiting: Array<{ page: number; answer: (status: string) => void }> = []
  const queryFn = ({ pageParam }: { pageParam: number }) =>
    new Promise<Page>((resolve) => {
      waiting.push({ page: pageParam, answer: (status) => resolve({ rows: [`row ${pageParam} ${status}`], next: pageParam === 0 ? 1 : null }) })
    })
  const answerAll = async (status: string) => {
    // Answers every fetch asked for, including those asked while answering, until none waits.
    for (let rounds = 0; rounds < 20; rounds++) {
      await new Promise((r) => setTimeout(r, 0))
      const next = waiting.shift()
      if (!next) return
      next.answer(status)
    }
  }
  return { queryFn, waiting, answerAll }
}

describe("invalidatePushed (a pushed status change while the person loads more)", () => {
  it("keeps the page being loaded, and still shows the change once that load is done", async () => {
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } })
    const list = slowList()
    const observer = new InfiniteQueryObserver<Page, Error, InfiniteData<Page>, string[], number>(client, {
      queryKey: ["executions", "list"],
      queryFn: list.queryFn,
      initialPageParam: 0,
      getNextPageParam: (last) => last.next,
    })
    const unsubscribe = observer.subscribe(() => undefined)
    await list.answerAll("CREATED")
    expect(observer.getCurrentResult().data?.pages).toHaveLength(1)

    const more = observer.fetchNextPage()
    await new Promise((r) => setTimeout(r, 0))
    expect(list.waiting.map((w) => w.page)).toEqual([1])
    // The settlement is pushed while page 2 is on its way.
    const pushed = invalidatePushed(client, { queryKey: ["executions"] })
    await list.answerAll("SETTLED")
    await more
    await pushed
    await list.answerAll("SETTLED")

    const pages = observer.getCurrentResult().data?.pages ?? []
    expect(pages.map((p) => p.rows[0])).toEqual(["row 0 SETTLED", "row 1 SETTLED"])
    unsubscribe()
    client.clear()
  })

  it("asks a query that was not fetching once, at once", async () => {
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } })
    let calls = 0
    const observer = new QueryObserver(client, { queryKey: ["intents", "x"], queryFn: () => Promise.resolve(++calls) })
    const unsubscribe = observer.subscribe(() => undefined)
    await new Promise((r) => setTimeout(r, 10))
    expect(calls).toBe(1)
    await invalidatePushed(client, { queryKey: ["intents"] })
    expect(calls).toBe(2)
    expect(observer.getCurrentResult().data).toBe(2)
    unsubscribe()
    client.clear()
  })
})
