"""Serves drfbench on one thread with the standard library's WSGI server.

    DRFBENCH_DATABASE=/path/items.sqlite3 /usr/bin/python3 bench/drf/serve.py [PORT]

Binds 127.0.0.1 (port 0, the default, picks a free one), prints
`drfbench listening on http://127.0.0.1:PORT/` once it accepts, and answers
one request at a time (HTTP/1.0: each connection closes after its answer).
No access log. Needs only Django and DRF (no gunicorn): what
test/rest/drf.differential.test.ts starts; bench/pagination.ts uses gunicorn.
"""
import os
import sys
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'drfbench.settings')

from django.core.wsgi import get_wsgi_application  # noqa: E402


class QuietHandler(WSGIRequestHandler):
    def log_message(self, format, *args):
        pass


def main():
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    application = get_wsgi_application()
    server = make_server('127.0.0.1', port, application, server_class=WSGIServer, handler_class=QuietHandler)
    print('drfbench listening on http://127.0.0.1:%d/' % server.server_port, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == '__main__':
    main()
