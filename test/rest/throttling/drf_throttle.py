"""Django REST framework 3.14's own throttle code, driven by the throttling
tests (test/rest/throttling/drf.differential.test.ts): reads one JSON
document on stdin, answers one on stdout.

  {"throttle": [{"rate": "3/m", "times": [t, ...]}, ...],
   "ident": [{"xff": str|null, "remote": str|null, "numProxies": int|null}, ...],
   "rate": [str, ...]}

Each throttle case runs DRF's SimpleRateThrottle (a new instance per
request, as APIView does) over a LocMemCache whose clock, like the
throttle's timer, is the case's request time; a refused request gives
DRF's wait(), the Throttled detail and the Retry-After header of DRF's
exception handler.
"""
import json
import sys

import django
from django.conf import settings

settings.configure(
    CACHES={'default': {'BACKEND': 'django.core.cache.backends.locmem.LocMemCache'}},
    DATABASES={},
    REST_FRAMEWORK={},
)
django.setup()

import django.core.cache.backends.base as cache_base  # noqa: E402
import django.core.cache.backends.locmem as cache_locmem  # noqa: E402
from django.core.cache import cache  # noqa: E402
from rest_framework import views  # noqa: E402
from rest_framework.exceptions import Throttled  # noqa: E402
from rest_framework.settings import api_settings  # noqa: E402
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle  # noqa: E402


class Clock:
    """Stands for the time module in Django's cache backends."""

    now = 0.0

    def time(self):
        return self.now


CLOCK = Clock()
cache_base.time = CLOCK
cache_locmem.time = CLOCK


class Probe(SimpleRateThrottle):
    def timer(self):
        return CLOCK.now

    def get_cache_key(self, request, view):
        return 'throttle_probe_case'


def run_throttle(case):
    cls = type('CaseThrottle', (Probe,), {'rate': case['rate']})
    cache.clear()
    out = []
    for t in case['times']:
        CLOCK.now = t
        throttle = cls()
        if throttle.allow_request(None, None):
            out.append([True, None, None, None])
            continue
        wait = throttle.wait()
        durations = [d for d in [wait] if d is not None]
        exc = Throttled(max(durations, default=None))
        response = views.exception_handler(exc, {})
        out.append([False, wait, str(response.data['detail']), response.get('Retry-After')])
    return out


class Request:
    def __init__(self, meta):
        self.META = meta


def run_ident(case):
    meta = {}
    if case['xff'] is not None:
        meta['HTTP_X_FORWARDED_FOR'] = case['xff']
    if case['remote'] is not None:
        meta['REMOTE_ADDR'] = case['remote']
    api_settings.NUM_PROXIES = case['numProxies']
    return BaseThrottle().get_ident(Request(meta))


def run_rate(rate):
    try:
        num, duration = SimpleRateThrottle.parse_rate(None, rate)
    except (ValueError, KeyError, IndexError) as e:
        return {'error': type(e).__name__}
    # Beyond 2**53 only the sign matters to the throttle.
    if abs(num) > 2 ** 53:
        num = 'big+' if num > 0 else 'big-'
    return {'num': num, 'duration': duration}


doc = json.load(sys.stdin)
json.dump(
    {
        'throttle': [run_throttle(c) for c in doc.get('throttle', [])],
        'ident': [run_ident(c) for c in doc.get('ident', [])],
        'rate': [run_rate(r) for r in doc.get('rate', [])],
    },
    sys.stdout,
)
