/**
 * fast-check generators of the throttling tests: request-time sequences for
 * a rate, X-Forwarded-For / REMOTE_ADDR / NUM_PROXIES combinations, and
 * rate strings near and far from DRF's grammar.
 */
import fc from 'fast-check';

/** A rate and the request times (seconds, as `time.time()`) to check against it. */
export interface ThrottleCase {
  readonly rate: string;
  readonly times: number[];
}

const SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** Mostly forward steps within a window, some landing on its edge, some back in time. */
export const throttleCase: fc.Arbitrary<ThrottleCase> = fc
  .tuple(
    fc.integer({ min: -1, max: 6 }),
    fc.constantFrom('s', 'sec', 'm', 'min', 'h', 'hour', 'd', 'day'),
    // Milliseconds (times rarely land exactly on a window's edge in doubles), or 1/1024 s (they do).
    fc.constantFrom(1000, 1024),
  )
  .chain(([num, period, scale]) => {
    const ms = (SECONDS[period[0] as string] as number) * scale;
    const step = fc.oneof(
      { weight: 6, arbitrary: fc.integer({ min: 0, max: Math.ceil(ms * 0.45) }) },
      { weight: 4, arbitrary: fc.constantFrom(0, ms / 4, ms / 2, (ms * 3) / 4, ms, ms - 1, ms + 1) },
      { weight: 1, arbitrary: fc.integer({ min: -ms, max: -1 }) },
    );
    return fc.record({
      rate: fc.constant(`${num}/${period}`),
      scale: fc.constant(scale),
      start: fc.integer({ min: 1_600_000_000, max: 1_900_000_000 }).map((s) => s * scale),
      steps: fc.array(step, { minLength: 1, maxLength: 40 }),
    });
  })
  .map(({ rate, scale, start, steps }) => {
    let t = start;
    return { rate, times: steps.map((s) => (t += s) / scale) };
  });

/** Python's whitespace and a few look-alikes that are not (U+FEFF, U+200B). */
const SPACES = [' ', '\t', '\n', '\x0b', '\x1c', '\x1f', '\x85', '\xa0', '\u2003', '\u3000', '\ufeff', '\u200b'];

/** Inputs of DRF's get_ident. */
export interface IdentCase {
  readonly xff: string | null;
  readonly remote: string | null;
  readonly numProxies: number | null;
}

export const identCase: fc.Arbitrary<IdentCase> = fc.record({
  xff: fc.option(
    fc
      .array(
        fc.oneof(
          fc.constantFrom('203.0.113.7', '10.0.0.2', '2001:db8::1', 'unknown', '', '192.0.2.1:80'),
          fc.constantFrom(...SPACES),
          fc.constant(','),
        ),
        { maxLength: 10 },
      )
      .map((parts) => parts.join('')),
    { freq: 4 },
  ),
  remote: fc.option(fc.constantFrom('127.0.0.1', '::1', '', ' 10.0.0.9 '), { freq: 5 }),
  numProxies: fc.option(fc.integer({ min: 0, max: 4 }), { freq: 2 }),
});

/** Rate strings: DRF's grammar with every odd corner Python's int() and the period check have, and noise. */
export const rateString: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(
      fc.array(fc.constantFrom(...SPACES), { maxLength: 2 }),
      fc.constantFrom('', '+', '-', '--'),
      fc.array(fc.constantFrom('0', '1', '7', '_', '\u0663', '\uff11', '\u{1d7d9}', '\u{1d7ce}', '\u0e52', 'x', '.'), {
        minLength: 0,
        maxLength: 6,
      }),
      fc.array(fc.constantFrom(...SPACES), { maxLength: 2 }),
      fc.constantFrom('/', '/', '/', '//', ''),
      fc.constantFrom('s', 'm', 'h', 'd', 'day', 'minute', 'S', 'D', '', 'x', ' s', 'sx/', '\u{1d42c}', 'hour'),
    )
    .map(
      ([a, sign, digits, b, slash, period]) => `${a.join('')}${sign}${digits.join('')}${b.join('')}${slash}${period}`,
    ),
  fc.constantFrom(
    '9'.repeat(4300) + '/s',
    '9'.repeat(4301) + '/s',
    '0'.repeat(4301) + '/s',
    '1' + '0'.repeat(400) + '/m',
  ),
  fc.string({ maxLength: 8 }),
);
