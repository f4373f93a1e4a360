"""Django settings of the Django REST framework peer of bench/pagination.ts.

The SQLite file comes from the environment (DRFBENCH_DATABASE), the same
file the eventide server opens; the `item` table is not managed by Django.
"""
import os

BASE_DIR = os.path.dirname(os.path.abspath(__file__))

SECRET_KEY = 'drfbench-not-secret'
DEBUG = False
ALLOWED_HOSTS = ['*']

INSTALLED_APPS = [
    'django.contrib.contenttypes',
    'django.contrib.auth',
    'rest_framework',
    'drfbench',
]

# CommonMiddleware adds Content-Length; nothing else (no sessions, CSRF,
# messages): the lightest usual setup.
MIDDLEWARE = [
    'django.middleware.common.CommonMiddleware',
]

ROOT_URLCONF = 'drfbench.urls'
WSGI_APPLICATION = 'drfbench.wsgi.application'

DATABASES = {
    'default': {
        'ENGINE': 'django.db.backends.sqlite3',
        'NAME': os.environ.get('DRFBENCH_DATABASE', os.path.join(BASE_DIR, '..', '..', '.data', 'items-1000000.sqlite3')),
    }
}

DEFAULT_AUTO_FIELD = 'django.db.models.AutoField'

TIME_ZONE = 'UTC'
USE_TZ = True
USE_I18N = False

# Django REST framework's defaults: JSON and browsable API renderers, session
# and basic authentication, AllowAny; pagination and versioning are set per
# view. The versions are the demo API's (they matter only to the versioned
# views).
REST_FRAMEWORK = {
    'ALLOWED_VERSIONS': ['v1', 'v2'],
    'DEFAULT_VERSION': 'v1',
}
