"""The endpoints of eventide's demo API (src/cli/demo.ts), in DRF.

Everything of the demo that DRF expresses: the six list endpoints, the
versioned list and detail, the version endpoint of each DRF versioning scheme
and the root. Not here: eventide's own HeaderVersioning and its OpenAPI
documents (their routes exist, for the root's links, but answer 404).
"""
from rest_framework import generics
from rest_framework.exceptions import NotFound
from rest_framework.filters import OrderingFilter
from rest_framework.utils.urls import remove_query_param, replace_query_param
from rest_framework.pagination import CursorPagination, LimitOffsetPagination, PageNumberPagination
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.versioning import (
    AcceptHeaderVersioning,
    HostNameVersioning,
    NamespaceVersioning,
    QueryParameterVersioning,
    URLPathVersioning,
)
from rest_framework.views import APIView

from .models import Item
from .serializers import ItemSerializer, ItemSerializerV1, ItemSerializerV2


class PagePagination(PageNumberPagination):
    page_size = 10
    page_size_query_param = 'page_size'
    max_page_size = 100


class LimitPagination(LimitOffsetPagination):
    default_limit = 10
    max_limit = 100


class CreatedCursor(CursorPagination):
    page_size = 10
    ordering = '-created'


class PriceCursor(CursorPagination):
    page_size = 10
    ordering = ('price', 'id')
    page_size_query_param = 'page_size'
    max_page_size = 100


class OrderableCursor(CursorPagination):
    page_size = 10
    ordering = '-created'
    page_size_query_param = 'page_size'
    max_page_size = 100


class LinkPagination(PageNumberPagination):
    """The links in a Link header, the bare page as the body (DRF's documented custom style, plus first and last)."""

    page_size = 10
    page_size_query_param = 'page_size'
    max_page_size = 100

    def get_paginated_response(self, data):
        links = []
        next_url = self.get_next_link()
        previous_url = self.get_previous_link()
        if next_url is not None:
            links.append('<%s>; rel="next"' % next_url)
        if previous_url is not None:
            links.append('<%s>; rel="prev"' % previous_url)
        if links:
            # RFC 8288 first and last, as eventide's LinkHeaderPagination adds them.
            url = self.request.build_absolute_uri()
            links.append('<%s>; rel="first"' % remove_query_param(url, self.page_query_param))
            last = self.page.paginator.num_pages
            last_url = (remove_query_param(url, self.page_query_param) if last == 1
                        else replace_query_param(url, self.page_query_param, last))
            links.append('<%s>; rel="last"' % last_url)
        return Response(data, headers={'Link': ', '.join(links)} if links else None)


class PageItems(generics.ListAPIView):
    queryset = Item.objects.order_by('id')
    serializer_class = ItemSerializer
    pagination_class = PagePagination


class LimitItems(generics.ListAPIView):
    queryset = Item.objects.order_by('id')
    serializer_class = ItemSerializer
    pagination_class = LimitPagination


class CursorItems(generics.ListAPIView):
    queryset = Item.objects.all()
    serializer_class = ItemSerializer
    pagination_class = CreatedCursor


class CursorPriceItems(generics.ListAPIView):
    queryset = Item.objects.all()
    serializer_class = ItemSerializer
    pagination_class = PriceCursor


class CursorOrderingItems(generics.ListAPIView):
    queryset = Item.objects.all()
    serializer_class = ItemSerializer
    pagination_class = OrderableCursor
    filter_backends = [OrderingFilter]
    ordering_fields = ['created', 'price', 'id']
    ordering = '-created'


class LinkItems(generics.ListAPIView):
    queryset = Item.objects.order_by('id')
    serializer_class = ItemSerializer
    pagination_class = LinkPagination


class VersionedSerializerMixin:
    def get_serializer_class(self):
        return ItemSerializerV1 if self.request.version == 'v1' else ItemSerializerV2


class VersionedItems(VersionedSerializerMixin, generics.ListAPIView):
    queryset = Item.objects.order_by('id')
    pagination_class = PagePagination
    versioning_class = URLPathVersioning


class VersionedItem(VersionedSerializerMixin, generics.RetrieveAPIView):
    queryset = Item.objects.all()
    versioning_class = URLPathVersioning


def version_view(scheme):
    """{"version": ..., "url": <its own URL through reverse()>} under a scheme."""

    class VersionView(APIView):
        versioning_class = scheme

        def get(self, request, *args, **kwargs):
            return Response({
                'version': request.version,
                'url': reverse(request.resolver_match.url_name, request=request),
            })

    VersionView.__name__ = scheme.__name__.replace('Versioning', '') + 'Version'
    return VersionView.as_view()


accept_version = version_view(AcceptHeaderVersioning)
urlpath_version = version_view(URLPathVersioning)
namespace_version = version_view(NamespaceVersioning)
host_version = version_view(HostNameVersioning)
query_version = version_view(QueryParameterVersioning)


class NotMirrored(APIView):
    """Routes of the demo DRF has no counterpart for (HeaderVersioning, the OpenAPI documents)."""

    versioning_class = None

    def get(self, request, *args, **kwargs):
        raise NotFound('Not mirrored in DRF.')


ENDPOINTS = [
    ('page', 'page-items'),
    ('limit', 'limit-items'),
    ('cursor', 'cursor-items'),
    ('cursor-price', 'cursor-price-items'),
    ('cursor-ordering', 'cursor-ordering-items'),
    ('link', 'link-items'),
]


class Root(APIView):
    versioning_class = None

    def get(self, request, *args, **kwargs):
        def link(name, kwargs=None):
            return reverse(name, kwargs=kwargs, request=request)

        body = {key: link(name) for key, name in ENDPOINTS}
        body['versioned'] = {
            'v1': link('versioned-item-list', {'version': 'v1'}),
            'v2': link('versioned-item-list', {'version': 'v2'}),
        }
        body['version'] = {
            'accept': link('accept-version'),
            'urlpath': link('urlpath-version', {'version': 'v1'}),
            'namespace': link('namespace-version'),
            'host': link('host-version'),
            'query': link('query-version'),
            'header': link('header-version'),
        }
        body['openapi'] = {'v1': link('openapi-v1'), 'v2': link('openapi-v2')}
        return Response(body)
