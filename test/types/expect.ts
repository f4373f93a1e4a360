/**
 * Type assertions for the type tests of test/types/: `Equal<A, B>` is
 * `true` exactly when A and B are the same type, so `const x: Equal<A, B> =
 * true` compiles only then; `expectType<T>(value)` checks a value's type.
 */

/** `true` when `A` and `B` are the same type (not merely assignable), else `false`. */
export type Equal<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;

/** Compiles only when `value` is assignable to `T`. */
export function expectType<T>(value: T): T {
  return value;
}

/** A value of any type, for declarations the type tests never run. */
export declare function given<T>(): T;
