from django.urls import include, path

from . import views

namespace_version = [path('version/', views.namespace_version, name='namespace-version')]

urlpatterns = [
    path('', views.Root.as_view(), name='api-root'),
    path('page/items/', views.PageItems.as_view(), name='page-items'),
    path('limit/items/', views.LimitItems.as_view(), name='limit-items'),
    path('cursor/items/', views.CursorItems.as_view(), name='cursor-items'),
    path('cursor-price/items/', views.CursorPriceItems.as_view(), name='cursor-price-items'),
    path('cursor-ordering/items/', views.CursorOrderingItems.as_view(), name='cursor-ordering-items'),
    path('link/items/', views.LinkItems.as_view(), name='link-items'),
    path('versioned/<str:version>/items/', views.VersionedItems.as_view(), name='versioned-item-list'),
    path('versioned/<str:version>/items/<int:pk>/', views.VersionedItem.as_view(), name='versioned-item-detail'),
    path('accept/version/', views.accept_version, name='accept-version'),
    path('urlpath/<str:version>/version/', views.urlpath_version, name='urlpath-version'),
    path('urlpath/version/', views.urlpath_version, name='urlpath-version'),
    path('namespace/v1/', include((namespace_version, 'v1'), namespace='v1')),
    path('namespace/v2/', include((namespace_version, 'v2'), namespace='v2')),
    path('namespace/v3/', include((namespace_version, 'v3'), namespace='v3')),
    path('namespace/legacy/', include((namespace_version, 'legacy'), namespace='legacy')),
    path('namespace/api/', include(([path('v2/', include((namespace_version, 'v2'), namespace='v2'))], 'api'), namespace='api')),
    path('namespace/', include(namespace_version)),
    path('host/version/', views.host_version, name='host-version'),
    path('query/version/', views.query_version, name='query-version'),
    # eventide's own HeaderVersioning and OpenAPI documents: routes for the root's links only.
    path('header/version/', views.NotMirrored.as_view(), name='header-version'),
    path('openapi/v1.json', views.NotMirrored.as_view(), name='openapi-v1'),
    path('openapi/v2.json', views.NotMirrored.as_view(), name='openapi-v2'),
]
