"""The list endpoints of eventide's demo API (src/cli/demo.ts), in DRF."""
from rest_framework import generics
from rest_framework.pagination import CursorPagination, LimitOffsetPagination, PageNumberPagination

from .models import Item
from .serializers import ItemSerializer


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
