/**
 * The shared result cache over the Turborepo remote cache HTTP API (`PUT`/`GET /v8/artifacts/:hash`,
 * a bearer token, `teamId`), e.g. ducktors' turborepo-remote-cache or Vercel's.
 *
 * Entries cannot be poisoned across teams: an artifact's id is an HMAC of the local key under the team's
 * secret (no one without it can name, let alone overwrite, the team's entries), and its body carries an
 * HMAC of (id, team, payload) that is checked on every read; an entry that fails it is ignored. The
 * remote never fails a call: each request has a time limit, a failure (refused, timeout, 5xx) turns the
 * remote off for a while (reads fall back to the local cache), and writes go out in the background.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { gunzipSync, gzipSync } from "node:zlib";
import { hmacHex } from "./hash.js";

const TAG_BYTES = 32;
/** After a failure the remote is left alone this long. */
const BACKOFF_MS = 30_000;
const MAX_BODY_BYTES = 64 * 1024 * 1024;
/** Background writes in flight at most; more are dropped (the local cache still has them). */
const MAX_PENDING_PUTS = 64;

export interface RemoteOptions {
  /** Base URL of the server (without /v8). */
  url: string;
  token: string;
  team: string;
  secret: string;
  timeoutMs: number;
  /** Only read from the remote (an agent that should not publish results). */
  readOnly?: boolean;
  onError?: (message: string) => void;
}

export interface RemoteStats {
  hits: number;
  misses: number;
  writes: number;
  rejected: number;
  failures: number;
}

export class RemoteStore {
  readonly stats: RemoteStats = { hits: 0, misses: 0, writes: 0, rejected: 0, failures: 0 };
  private downUntil = 0;
  private disabled: string | undefined;
  private readonly pending = new Set<Promise<void>>();
  private readonly base: string;

  constructor(private readonly options: RemoteOptions) {
    this.base = options.url.replace(/\/+$/, "");
  }

  /** Why the remote is not used now, or undefined when it is. */
  unavailable(): string | undefined {
    if (this.disabled) return this.disabled;
    if (Date.now() < this.downUntil) return "the remote cache failed recently; using the local cache";
    return undefined;
  }

  private artifactId(key: string): string {
    return hmacHex(this.options.secret, `mcq-result-v1:${key}`);
  }

  private url(id: string): string {
    return `${this.base}/v8/artifacts/${id}?teamId=${encodeURIComponent(this.options.team)}`;
  }

  private tag(id: string, payload: Buffer): Buffer {
    return createHmac("sha256", this.options.secret)
      .update(id)
      .update("\0")
      .update(this.options.team)
      .update("\0")
      .update(payload)
      .digest();
  }

  private fail(why: string, status?: number): void {
    this.stats.failures++;
    if (status === 401 || status === 403) {
      this.disabled = `the remote cache refused the token (HTTP ${status}); it is off for this server`;
      this.options.onError?.(this.disabled);
      return;
    }
    if (Date.now() >= this.downUntil)
      this.options.onError?.(`remote cache: ${why}; local cache only for 30 s`);
    this.downUntil = Date.now() + BACKOFF_MS;
  }

  /** The entry's bytes, or undefined: absent, refused, slow, or failing its signature. */
  async get(key: string): Promise<Buffer | undefined> {
    if (this.unavailable()) return undefined;
    const id = this.artifactId(key);
    let body: Buffer;
    try {
      const res = await fetch(this.url(id), {
        headers: { authorization: `Bearer ${this.options.token}` },
        signal: AbortSignal.timeout(this.options.timeoutMs),
        redirect: "error",
      });
      if (res.status === 404) {
        await res.body?.cancel();
        this.stats.misses++;
        return undefined;
      }
      if (!res.ok) {
        await res.body?.cancel();
        this.fail(`GET answered HTTP ${res.status}`, res.status);
        return undefined;
      }
      const length = Number(res.headers.get("content-length") ?? 0);
      if (length > MAX_BODY_BYTES) {
        await res.body?.cancel();
        this.stats.rejected++;
        return undefined;
      }
      body = Buffer.from(await res.arrayBuffer());
    } catch (err) {
      this.fail(`GET failed: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    }
    if (body.length <= TAG_BYTES || body.length > MAX_BODY_BYTES) {
      this.stats.rejected++;
      return undefined;
    }
    const payload = body.subarray(TAG_BYTES);
    if (!timingSafeEqual(body.subarray(0, TAG_BYTES), this.tag(id, payload))) {
      this.stats.rejected++;
      return undefined;
    }
    try {
      const data = gunzipSync(payload, { maxOutputLength: MAX_BODY_BYTES });
      this.stats.hits++;
      return data;
    } catch {
      this.stats.rejected++;
      return undefined;
    }
  }

  /** Sends the entry in the background; dropped when the remote is down or too many are in flight. */
  put(key: string, data: string | Buffer): void {
    if (this.options.readOnly || this.unavailable() || this.pending.size >= MAX_PENDING_PUTS) return;
    const id = this.artifactId(key);
    const payload = gzipSync(data);
    const tag = this.tag(id, payload);
    const body = Buffer.concat([tag, payload]);
    const p = (async () => {
      try {
        const res = await fetch(this.url(id), {
          method: "PUT",
          headers: {
            authorization: `Bearer ${this.options.token}`,
            "content-type": "application/octet-stream",
            "x-artifact-tag": tag.toString("base64"),
          },
          body,
          signal: AbortSignal.timeout(Math.max(this.options.timeoutMs, 5000)),
          redirect: "error",
        });
        await res.body?.cancel();
        if (res.ok) this.stats.writes++;
        else this.fail(`PUT answered HTTP ${res.status}`, res.status);
      } catch (err) {
        this.fail(`PUT failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    })().finally(() => this.pending.delete(p));
    this.pending.add(p);
  }

  /** Waits for the writes in flight. */
  async flush(): Promise<void> {
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }
}
