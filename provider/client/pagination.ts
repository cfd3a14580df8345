import { PaginationError } from "./errors";

export interface Page<T> {
  items: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

export type PageFetcher<T> = (cursor: string | undefined) => Promise<Page<T>>;

/**
 * A cursor-paginated listing. Iterate it with `for await` to get every record, or call `pages()`
 * for page-level access. Nothing is requested until iteration starts; each iteration starts over.
 */
export class CursorList<T> implements AsyncIterable<T> {
  readonly #operation: string;
  readonly #fetchPage: PageFetcher<T>;
  readonly #startCursor: string | undefined;
  readonly #redact: (text: string) => string;

  /** `redact` cleans cursors before they reach an error message (a server could echo the token in one). */
  constructor(operation: string, fetchPage: PageFetcher<T>, startCursor?: string, redact: (text: string) => string = (t) => t) {
    this.#operation = operation;
    this.#fetchPage = fetchPage;
    this.#startCursor = startCursor;
    this.#redact = redact;
  }

  /** Yields each page, following `next_cursor` while `has_more`. */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    const seen = new Set<string>();
    let cursor = this.#startCursor;
    if (cursor !== undefined) seen.add(cursor);
    for (;;) {
      const page = await this.#fetchPage(cursor);
      yield page;
      if (!page.hasMore) return;
      if (page.nextCursor === null || page.nextCursor === "") {
        throw new PaginationError(
          this.#operation,
          `the server sent an unfollowable page: has_more is true but next_cursor is ${page.nextCursor === null ? "null" : "empty"}`,
        );
      }
      if (seen.has(page.nextCursor)) {
        throw new PaginationError(
          this.#operation,
          `the server returned cursor ${this.#redact(JSON.stringify(page.nextCursor))} a second time`,
        );
      }
      seen.add(page.nextCursor);
      cursor = page.nextCursor;
    }
  }

  /** The first page only (one request). */
  async firstPage(): Promise<Page<T>> {
    return this.#fetchPage(this.#startCursor);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.items;
  }

  async toArray(): Promise<T[]> {
    const all: T[] = [];
    for await (const item of this) all.push(item);
    return all;
  }
}
