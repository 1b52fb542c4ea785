/**
 * Which of discord.js REST's requests belong to a posting call, and their
 * reports to its send's `DispatchObserver`. discord.js holds a request in its
 * per-route queue while an earlier one of the same rate-limit bucket is out,
 * waits out a bucket that is used up, and after a 429 waits `retry_after`
 * and sends the request again — all inside one `rest.post`. So a posting
 * call is reported where its requests actually leave: REST's `makeRequest`
 * (the function it sends every request through, once per attempt), which
 * finds the call's reports in the async context the call runs in. Requests
 * outside a posting call (edits, typing, thread creation) carry none.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { DefaultRestOptions, type RESTOptions } from "discord.js";
import type { RequestReports } from "../common/request-reports.js";

export class PostingRequests {
  private readonly current = new AsyncLocalStorage<RequestReports>();

  /** REST's `makeRequest`: each request, first try and retries, leaves here. */
  readonly makeRequest: RESTOptions["makeRequest"] = (url, init) => {
    const reports = this.current.getStore();
    const send = () => DefaultRestOptions.makeRequest(url, init);
    // Any 2xx carried it out; a refusal, a 429 or a 5xx did not.
    return reports ? reports.request(send, (res) => res.ok) : send();
  };

  /** Runs one `rest` call, every request it sends reported to `reports` (none without). */
  run<T>(reports: RequestReports | undefined, call: () => Promise<T>): Promise<T> {
    return reports ? this.current.run(reports, call) : call();
  }
}
