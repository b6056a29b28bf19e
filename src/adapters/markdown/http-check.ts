/**
 * Checks external HTTP(S) links in-process with Node's fetch: each distinct URL once per run, at most
 * `concurrent` requests in all and a few per host, HEAD first and GET when a server refuses HEAD,
 * redirects followed by hand (bounded, loops detected), 429 retried after Retry-After when that fits
 * in the per-link timeout.
 */
import pLimit, { type LimitFunction } from "p-limit";
import type { Agent, Response } from "undici";

const importUndici = () => import("undici");
let undici: ReturnType<typeof importUndici> | undefined;
/** undici is loaded by the first external check: importing it is about 70 ms of every cold start otherwise. */
const loadUndici = () => (undici ??= importUndici());
import { VERSION } from "../../version.js";
import { bare, guardedLookup, isPrivateAddress, PrivateAddressError } from "./address-policy.js";
import { describeRequestError, retryAfterMs } from "./http-errors.js";
import { withoutFragment } from "./link-target.js";

export type HttpOutcome = { ok: true; status: number } | { ok: false; error: string };

export interface HttpCheckOptions {
  /** Budget per URL, covering redirects and 429 waits (not time spent queued for a slot). */
  timeoutMs: number;
  /** Requests in flight at once, over all hosts. */
  concurrent: number;
  /** Requests in flight at once to one host (politeness). */
  perHost?: number;
  maxRedirects?: number;
  /** Aborts every check (the tool call was cancelled or ran out of time). */
  signal?: AbortSignal;
  /**
   * Addresses never connected to, checked on every hop's resolved address; default: loopback,
   * link-local and private ranges (`isPrivateAddress`). `() => false` allows every address.
   */
  refuseAddress?: (address: string) => boolean;
}

export const DEFAULT_PER_HOST = 2;
export const DEFAULT_MAX_REDIRECTS = 10;
const MAX_429_RETRIES = 3;
const USER_AGENT = `mcp-code-quality/${VERSION} (markdown link checker)`;

/** Statuses after a HEAD for which GET is tried: servers that refuse or mishandle HEAD. */
function retryWithGet(status: number): boolean {
  return status >= 400 && status !== 404 && status !== 410 && status !== 429;
}

const isRedirect = (status: number) => [301, 302, 303, 307, 308].includes(status);

type Attempt = HttpOutcome | { ok: false; retryAfterMs: number | undefined };

class LinkTimeout extends Error {}

export class ExternalLinkChecker {
  private readonly results = new Map<string, Promise<HttpOutcome>>();
  private readonly hosts = new Map<string, LimitFunction>();
  private readonly slots: LimitFunction;
  private readonly perHost: number;
  private readonly maxRedirects: number;
  private readonly refuse: (address: string) => boolean;
  /** Made by the first request; undefined until then (close and destroy have nothing to end). */
  private agent: Promise<Agent> | undefined;

  constructor(private readonly options: HttpCheckOptions) {
    this.refuse = options.refuseAddress ?? isPrivateAddress;
    this.slots = pLimit(options.concurrent);
    this.perHost = Math.min(options.perHost ?? DEFAULT_PER_HOST, options.concurrent);
    this.maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  }

  /** Distinct URLs (fragments ignored) checked or being checked so far. */
  get distinctUrls(): number {
    return this.results.size;
  }

  /** The outcome for a URL; the same URL (up to its fragment) is requested only once. */
  check(url: string): Promise<HttpOutcome> {
    const key = withoutFragment(url);
    let result = this.results.get(key);
    if (!result) {
      result = this.checkOnce(key);
      this.results.set(key, result);
    }
    return result;
  }

  /** Closes the run's connections once their requests are done. */
  async close(): Promise<void> {
    await (await this.agent)?.close();
  }

  /** Drops the run's connections now, requests in flight included. */
  async destroy(): Promise<void> {
    await (await this.agent)?.destroy().catch(() => undefined);
  }

  private dispatcher(): Promise<Agent> {
    return (this.agent ??= loadUndici().then(
      ({ Agent }) => new Agent({ connect: { lookup: guardedLookup(this.refuse) } }),
    ));
  }

  private hostSlots(host: string): LimitFunction {
    let s = this.hosts.get(host);
    if (!s) {
      s = pLimit(this.perHost);
      this.hosts.set(host, s);
    }
    return s;
  }

  private async checkOnce(url: string): Promise<HttpOutcome> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return { ok: false, error: "malformed URL" };
    }
    // Both slots are taken before the clock starts, so time spent queued never counts as a timeout;
    // they are held through a 429 wait (politeness: the host asked us to wait).
    return this.hostSlots(parsed.host)(() => this.slots(() => this.checkHeld(url, parsed.host)));
  }

  /** checkOnce with its host's slot and a slot of the run held. */
  private async checkHeld(url: string, host: string): Promise<HttpOutcome> {
    const timer = new AbortController();
    const timeout = setTimeout(() => timer.abort(new LinkTimeout()), this.options.timeoutMs);
    const signal = this.options.signal ? AbortSignal.any([timer.signal, this.options.signal]) : timer.signal;
    const deadline = Date.now() + this.options.timeoutMs;
    try {
      for (let retries = 0; ; retries++) {
        const attempt = await this.follow(url, signal);
        if (!("retryAfterMs" in attempt)) return attempt;
        const wait = attempt.retryAfterMs;
        if (wait === undefined) return { ok: false, error: "HTTP 429 Too Many Requests (no Retry-After)" };
        if (retries >= MAX_429_RETRIES)
          return { ok: false, error: `HTTP 429 Too Many Requests (still limited after ${retries} retries)` };
        if (Date.now() + wait >= deadline)
          return {
            ok: false,
            error: `HTTP 429 Too Many Requests (Retry-After ${Math.ceil(wait / 1000)} s exceeds the ${this.timeoutSeconds()} s timeout)`,
          };
        await sleep(wait, signal);
      }
    } catch (err) {
      if (timer.signal.aborted) return { ok: false, error: `timeout after ${this.timeoutSeconds()} s` };
      if (this.options.signal?.aborted) throw err;
      return { ok: false, error: describeRequestError(err, host) };
    } finally {
      clearTimeout(timeout);
    }
  }

  private timeoutSeconds(): number {
    return Math.round(this.options.timeoutMs / 100) / 10;
  }

  /** One pass over the redirect chain from `url`. */
  private async follow(url: string, signal: AbortSignal): Promise<Attempt> {
    const seen = new Set([url]);
    let current = url;
    for (let hops = 0; ; hops++) {
      let res = await this.request(current, "HEAD", signal);
      if (retryWithGet(res.status)) res = await this.request(current, "GET", signal);
      if (isRedirect(res.status)) {
        const location = res.headers.get("location");
        if (!location) return { ok: false, error: `HTTP ${res.status} redirect without a Location header` };
        let next: URL;
        try {
          next = new URL(location, current);
        } catch {
          return { ok: false, error: `HTTP ${res.status} redirect to a malformed URL` };
        }
        next.hash = "";
        if (next.protocol !== "http:" && next.protocol !== "https:")
          return { ok: false, error: `redirect to unsupported scheme ${next.protocol}` };
        if (seen.has(next.href)) return { ok: false, error: `redirect loop (${next.href} reached again)` };
        if (hops >= this.maxRedirects)
          return { ok: false, error: `too many redirects (more than ${this.maxRedirects})` };
        seen.add(next.href);
        current = next.href;
        continue;
      }
      if (res.status === 429)
        return { ok: false, retryAfterMs: retryAfterMs(res.headers.get("retry-after")) };
      if (res.status >= 200 && res.status < 300) return { ok: true, status: res.status };
      return { ok: false, error: `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ""}` };
    }
  }

  /**
   * One request without following redirects; a GET's body is discarded unread. An IP-literal host is
   * refused here (no lookup happens for it); a host name is checked by the agent's lookup.
   */
  private async request(url: string, method: "HEAD" | "GET", signal: AbortSignal): Promise<Response> {
    const host = bare(new URL(url).hostname);
    if (this.refuse(host)) throw new PrivateAddressError(host, host);
    const [{ fetch }, dispatcher] = await Promise.all([loadUndici(), this.dispatcher()]);
    const res = await fetch(url, {
      method,
      redirect: "manual",
      signal,
      dispatcher,
      headers: { "user-agent": USER_AGENT, accept: "*/*" },
    });
    await res.body?.cancel().catch(() => undefined);
    return res;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason as Error);
    };
    const t = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
