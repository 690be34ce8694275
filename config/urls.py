"""Top-level URL configuration."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView

from evaluation import api as evaluation_api
from judging import api as judging_api
from judging.views import home

urlpatterns = [
    path("", home, name="home"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("judging/", include("judging.urls")),
    path("results/", include("evaluation.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path(
        "api/collections/<int:collection_id>/status/",
        evaluation_api.CollectionStatusView.as_view(),
        name="api-collection-status",
    ),
    path(
        "api/collections/<int:collection_id>/recompute/",
        evaluation_api.CollectionRecomputeView.as_view(),
        name="api-collection-recompute",
    ),
    path("api/jobs/<int:job_id>/", evaluation_api.JobView.as_view(), name="api-job"),
    path("api/judgments/", judging_api.JudgmentListCreate.as_view(), name="api-judgments"),
]
