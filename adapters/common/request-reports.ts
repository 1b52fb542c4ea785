/**
 * Reports one posting call's requests to its send's `DispatchObserver` where
 * a platform SDK sends them itself, after waits of its own (its rate-limit
 * queue) and again on its own retries: the adapter hooks the SDK's lowest
 * request function and runs each request through `request`, so `started()`
 * is told as the request leaves and `ended()` once its answer says whether
 * it posted — for the first try and for every retry alike.
 */
import type { DispatchObserver } from "../types.js";
import { isAbortError } from "./abort-error.js";

export class RequestReports {
  /** The request told `started()` and not yet `ended()` (0: none). */
  private open = 0;
  private sent = 0;
  private refusal: { readonly error: unknown } | null = null;

  constructor(private readonly observer: DispatchObserver) {}

  /**
   * Sends one request of the call. `verdict(answer)` says whether the answer means the request posted, or
   * undefined when only the call's outcome can tell (a Slack answer's `ok`): `settle` then ends it. A request
   * that fails without an answer posted nothing, unless it was aborted or timed out once sent (it may have).
   */
  async request<R>(send: () => Promise<R>, verdict: (answer: R) => boolean | undefined): Promise<R> {
    try {
      this.observer.started();
    } catch (error) {
      this.refusal = { error };
      throw error;
    }
    const id = ++this.sent;
    this.open = id;
    let answer: R;
    try {
      answer = await send();
    } catch (err) {
      this.end(id, isAbortError(err));
      throw err;
    }
    const posted = verdict(answer);
    if (posted !== undefined) this.end(id, posted);
    return answer;
  }

  /** The call is over: a request still open ends with `posted` (the call went through, or may have). */
  settle(posted: boolean): void {
    this.end(this.open, posted);
  }

  /**
   * The error the call fails with: what `started()` threw, as it was (the request was not sent, and what the
   * SDK made of that error is not the reason); else `classify(err)`.
   */
  failure(err: unknown, classify: (err: unknown) => unknown): unknown {
    return this.refusal ? this.refusal.error : classify(err);
  }

  private end(id: number, posted: boolean): void {
    if (id === 0 || this.open !== id) return;
    this.open = 0;
    this.observer.ended(posted);
  }
}
