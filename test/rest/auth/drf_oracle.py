"""The Django / DRF side of test/rest/auth/differential.test.ts.

Reads one JSON document on stdin:
  {"hashes": [[hasher, password, salt, iterations or null], ...],
   "headers": ["<latin-1 text of the header bytes>", ...]}
and writes one JSON document on stdout:
  {"hashes": [encoded, ...],
   "basic": [result, ...], "token": [result, ...]}
where a result is {"kind": "none"}, {"kind": "ok", ...} or {"kind": "error", "detail": text}.
The credential checks are stubbed: they return what the header held.
"""
import json
import sys

import django
from django.conf import settings

settings.configure(
    USE_I18N=False,
    SECRET_KEY='differential-test',
    PASSWORD_HASHERS=[
        'django.contrib.auth.hashers.PBKDF2PasswordHasher',
        'django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher',
    ],
    INSTALLED_APPS=['django.contrib.contenttypes', 'django.contrib.auth'],
)
django.setup()

from django.contrib.auth.hashers import get_hasher, make_password  # noqa: E402
from rest_framework import exceptions  # noqa: E402
from rest_framework.authentication import BasicAuthentication, TokenAuthentication  # noqa: E402


class Basic(BasicAuthentication):
    def authenticate_credentials(self, userid, password, request=None):
        return ({'userid': userid, 'password': password}, None)


class Token(TokenAuthentication):
    def authenticate_credentials(self, key):
        return ({'key': key}, None)


class FakeRequest:
    def __init__(self, header):
        self.META = {'HTTP_AUTHORIZATION': header}


def run(auth, header):
    try:
        got = auth.authenticate(FakeRequest(header))
    except exceptions.AuthenticationFailed as e:
        return {'kind': 'error', 'detail': str(e.detail)}
    if got is None:
        return {'kind': 'none'}
    return dict(got[0], kind='ok')


doc = json.load(sys.stdin)
hashes = []
for hasher, password, salt, iterations in doc['hashes']:
    if iterations is None:
        hashes.append(make_password(password, salt, hasher))
    else:
        hashes.append(get_hasher(hasher).encode(password, salt, iterations))
headers = [h.encode('latin-1') for h in doc['headers']]
json.dump({
    'hashes': hashes,
    'basic': [run(Basic(), h) for h in headers],
    'token': [run(Token(), h) for h in headers],
}, sys.stdout)
