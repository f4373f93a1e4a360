from django.urls import path

from . import views

urlpatterns = [
    path('page/items/', views.PageItems.as_view(), name='page-items'),
    path('limit/items/', views.LimitItems.as_view(), name='limit-items'),
    path('cursor/items/', views.CursorItems.as_view(), name='cursor-items'),
]
