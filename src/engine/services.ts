/**
 * Long-lived, lazily created singletons shared by every call of one server (embedded ruff, warm worker
 * pools, ...). Each is created on first use and closed when the server stops.
 */
export interface Closeable {
  close?(): Promise<void> | void;
}

export class Services {
  private readonly instances = new Map<string, object>();

  /** The instance registered under `key`, created by `create` on first use. */
  get<T extends object>(key: string, create: () => T): T {
    let instance = this.instances.get(key);
    if (!instance) {
      instance = create();
      this.instances.set(key, instance);
    }
    return instance as T;
  }

  async close(): Promise<void> {
    const all = [...this.instances.values()];
    this.instances.clear();
    await Promise.allSettled(all.map(async (i) => (i as Closeable).close?.()));
  }
}
