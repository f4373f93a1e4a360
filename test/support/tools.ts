/**
 * What the tests need from the machine (commands such as curl, openssl, wrk,
 * a C compiler, redis-server and PostgreSQL's server binaries; root and
 * network namespaces; Chromium) and what a test does without it: outside CI
 * it is skipped with the reason; in CI (env `CI` set), where `.ci/run`
 * installs everything, a missing tool fails instead. Every conditional skip
 * of a test goes through this module (test/skips.test.ts checks it): a
 * requirement made by {@link requireTool} or {@link requireCommand}, or, for
 * what no CI machine can promise, {@link optionalFeature}. The opt-outs that
 * exist on purpose (EVENTIDE_SKIP_POSTGRES=1, EVENTIDE_SKIP_REDIS=1) are
 * explicit in the tests that honour them.
 *
 * Make requirements at the top level of a test file (not inside a test):
 * in CI a missing tool registers a failing test of its own there, so the
 * run fails whatever the tests that need it do.
 *
 * @example
 * ```ts
 * const curl = requireCommand('curl', 'apt-get install curl');
 * test('curl: GET', { skip: curl.skip }, async () => {
 *   curl.assert(); // fails in CI when curl is missing (skip is false there)
 *   await run(curl.path, ['-sS', url]);
 * });
 * ```
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { test, type TestContext } from 'node:test';

/** Whether the tests run in CI (env `CI` set and not empty), where a missing tool fails. */
export const IN_CI = Boolean(process.env.CI);

/** Something a test needs from the machine, present or not. */
export interface Requirement {
  /** Why it is missing (with how to get it), or null when it is there. */
  readonly missing: string | null;
  /**
   * The `skip` option of a test or suite that needs it: the reason when it is
   * missing and may be skipped, otherwise false (present, or missing in CI,
   * where the test runs and fails).
   */
  readonly skip: string | false;
  /** Fails (an AssertionError with the reason) when it is missing: first thing in a test, or a suite's `before`. */
  assert(): void;
  /**
   * For a test that finds out inside its body: true when present; when
   * missing, fails in CI, otherwise skips `t` with the reason and returns
   * false (`if (!ipv6.check(t)) return;`).
   */
  check(t: TestContext): boolean;
  /**
   * For a part of a test that needs it: true when present; when missing,
   * fails in CI, otherwise notes (`t.diagnostic`) that `part` was left out
   * and returns false.
   */
  checkPart(t: TestContext, part: string): boolean;
}

function requirement(missing: string | null, failsInCI: boolean): Requirement {
  const fails = missing !== null && failsInCI && IN_CI;
  if (fails) {
    test(`required in CI: ${missing}`, () => {
      assert.fail(`${missing} (CI is set, so this fails instead of skipping; .ci/run installs it)`);
    });
  }
  return {
    missing,
    skip: missing === null || fails ? false : `${missing}; skipped${failsInCI ? ' (in CI this fails)' : ''}`,
    assert(): void {
      if (missing !== null) assert.fail(`${missing}: this test needs it`);
    },
    check(t: TestContext): boolean {
      if (missing === null) return true;
      if (fails) assert.fail(`${missing}: this test needs it`);
      t.skip(`${missing}; skipped`);
      return false;
    },
    checkPart(t: TestContext, part: string): boolean {
      if (missing === null) return true;
      if (fails) assert.fail(`${missing}: ${part} needs it`);
      t.diagnostic(`${missing}: ${part} left out`);
      return false;
    },
  };
}

/**
 * A tool the tests need, found by the caller: `missing` is why it is not
 * there (null: it is). Outside CI the tests that need it skip; in CI they
 * fail.
 */
export function requireTool(missing: string | null): Requirement {
  return requirement(missing, true);
}

/**
 * A property of the machine that CI cannot promise either (an IPv6
 * loopback address inside a container): the tests that need it skip,
 * in CI too. Not for tools: those are {@link requireTool}.
 */
export function optionalFeature(missing: string | null): Requirement {
  return requirement(missing, false);
}

/** The executable `cmd` on PATH (or `cmd` itself when it is a path), or null. */
export function findCommand(cmd: string): string | null {
  const candidates = cmd.includes('/')
    ? [cmd]
    : (process.env.PATH ?? '')
        .split(delimiter)
        .filter((d) => d !== '')
        .map((d) => join(d, cmd));
  for (const p of candidates) {
    try {
      if (!statSync(p).isFile()) continue;
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return null;
}

/** A command the tests run, and where it is. */
export interface CommandRequirement extends Requirement {
  /** The command's path (its name when it is missing, so that a run that goes ahead fails with ENOENT). */
  readonly path: string;
}

/**
 * A command on PATH (`install`: how to get it, e.g. `apt-get install curl`).
 * With `probe`, the command must also run with those arguments and exit 0
 * (a Python that imports a module, say), within 60 s.
 */
export function requireCommand(cmd: string, install: string, probe?: readonly string[]): CommandRequirement {
  const path = findCommand(cmd);
  let missing: string | null = path === null ? `${cmd} is not installed (${install})` : null;
  if (path !== null && probe !== undefined) {
    const r = spawnSync(path, probe, { encoding: 'utf8', timeout: 60_000 });
    if (r.error !== undefined || r.status !== 0) {
      const why = r.error?.message ?? (r.stderr.trim().split('\n').pop() || `exit ${String(r.status)}`);
      missing = `${cmd} ${probe.join(' ')} fails (${why}; ${install})`;
    }
  }
  return { ...requireTool(missing), path: path ?? cmd };
}
