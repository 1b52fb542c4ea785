/**
 * A Map that forgets its oldest entries past `capacity`: for caches and
 * notes an adapter keeps about a platform (names, threads, prompts) that
 * must not grow for as long as the daemon runs. Reading an entry does not
 * refresh it; writing one does.
 */
export class BoundedMap<K, V> {
  private readonly map = new Map<K, V>();

  constructor(private readonly capacity: number) {}

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  set(key: K, value: V): this {
    this.map.delete(key);
    this.map.set(key, value);
    for (const oldest of this.map.keys()) {
      if (this.map.size <= this.capacity) break;
      this.map.delete(oldest);
    }
    return this;
  }

  delete(key: K): boolean {
    return this.map.delete(key);
  }

  get size(): number {
    return this.map.size;
  }
}

/** A Set that forgets its oldest members past `capacity`; adding a member again makes it the newest. */
export class BoundedSet<K> {
  private readonly map: BoundedMap<K, true>;

  constructor(capacity: number) {
    this.map = new BoundedMap(capacity);
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  add(key: K): this {
    this.map.set(key, true);
    return this;
  }

  delete(key: K): boolean {
    return this.map.delete(key);
  }
}
