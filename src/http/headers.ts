/**
 * An ordered header list: names as sent, duplicates kept, case-insensitive
 * lookups. Small and allocation-light: two parallel arrays.
 *
 * @module
 */

/**
 * ASCII lower-casing without allocating when the name is already lower case.
 * @internal
 */
export function lower(name: string): string {
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c >= 65 && c <= 90) return name.toLowerCase();
  }
  return name;
}

/** The arrays of every list without fields: one pair, frozen, replaced by the first `add()`. */
const NONE = Object.freeze([]) as readonly string[] as string[];

/**
 * Header fields in wire order.
 * @example
 * ```ts
 * const h = new HeaderList();
 * h.add('Content-Type', 'text/plain');
 * h.get('content-type'); // 'text/plain'
 * ```
 */
export class HeaderList {
  names: string[] = NONE;
  values: string[] = NONE;

  /** Number of fields. */
  get length(): number {
    return this.names.length;
  }

  /** Appends a field (duplicates allowed). */
  add(name: string, value: string): void {
    if (this.names.length === 0) {
      // The first field: arrays of one (not the shared empty ones, nor grown to V8's first capacity of 17).
      this.names = [name];
      this.values = [value];
      return;
    }
    this.names.push(name);
    this.values.push(value);
  }

  /** The first value of a field, case-insensitively, or null. */
  get(name: string): string | null {
    const names = this.names;
    const n = names.length;
    const want = lower(name);
    for (let i = 0; i < n; i++) {
      const k = names[i] as string;
      if (k.length === want.length && (k === want || lower(k) === want)) return this.values[i] as string;
    }
    return null;
  }

  /** Whether a field is present. */
  has(name: string): boolean {
    return this.get(name) !== null;
  }

  /** Removes the first field of that name; false when absent. */
  remove(name: string): boolean {
    const want = lower(name);
    const names = this.names;
    for (let i = 0; i < names.length; i++) {
      if (lower(names[i] as string) === want) {
        names.splice(i, 1);
        this.values.splice(i, 1);
        return true;
      }
    }
    return false;
  }

  /** Removes every field of that name; returns how many. */
  removeAll(name: string): number {
    let n = 0;
    while (this.remove(name)) n++;
    return n;
  }

  /** Removes every field. */
  clear(): void {
    this.names = NONE;
    this.values = NONE;
  }

  /**
   * The fields as an object in wire order. Keys are case-sensitive as in PHP,
   * so `X-A` and `x-a` both appear; identical names collapse to the last value.
   */
  toObject(): Record<string, string> {
    const out: Record<string, string> = {};
    for (let i = 0; i < this.names.length; i++) out[this.names[i] as string] = this.values[i] as string;
    return out;
  }

  /** The fields as `[name, value]` pairs in wire order. */
  entries(): [string, string][] {
    return this.names.map((n, i) => [n, this.values[i] as string]);
  }
}
