"""Top-level URL configuration."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.shortcuts import redirect
from django.templatetags.static import static
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularSwaggerSplitView

from config.api_errors import api_not_found
from config.schema import SchemaView
from evaluation import api as evaluation_api
from judging.api import campaign as campaign_api
from judging.api import jobs as jobs_api
from judging.api import judgments as judgments_api
from judging.views import home
from judging.views.people import account

urlpatterns = [
    path("", home, name="home"),
    # Browsers ask for /favicon.ico whatever the page says; answer with the icon instead of a logged 404.
    path("favicon.ico", lambda request: redirect(static("favicon.svg"), permanent=True)),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/me/", account, name="account"),
    path(
        "accounts/set-password/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "accounts/set-password/done/", auth_views.PasswordResetCompleteView.as_view(), name="password_reset_complete"
    ),
    path("accounts/password/", auth_views.PasswordChangeView.as_view(), name="password_change"),
    path("accounts/password/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
    path("admin/", admin.site.urls),
    path("judging/", include("judging.urls")),
    path("results/", include("evaluation.urls")),
    path("api/schema/", SchemaView.as_view(), name="api-schema"),
    # The split view serves Swagger UI's start-up script as a file: the Content-Security-Policy allows no inline one.
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
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
    path("api/jobs/<int:job_id>/", jobs_api.JobView.as_view(), name="api-job"),
    path("api/collections/<int:collection_id>/qrels/", evaluation_api.QrelsExportView.as_view(), name="api-qrels"),
    path("api/collections/<int:collection_id>/results/", evaluation_api.ResultsView.as_view(), name="api-results"),
    path(
        "api/collections/<int:collection_id>/results/export/",
        evaluation_api.ResultsExportView.as_view(),
        name="api-results-export",
    ),
    path(
        "api/collections/<int:collection_id>/agreement/", evaluation_api.AgreementView.as_view(), name="api-agreement"
    ),
    path("api/collections/<int:collection_id>/compare/", evaluation_api.CompareView.as_view(), name="api-compare"),
    path("api/collections/<int:collection_id>/pairs/", evaluation_api.PairsView.as_view(), name="api-pairs"),
    path("api/collections/<int:collection_id>/trial/", evaluation_api.TrialRunView.as_view(), name="api-trial"),
    path("api/collections/", campaign_api.CollectionList.as_view(), name="api-collections"),
    path("api/collections/<int:collection_id>/", campaign_api.CollectionDetail.as_view(), name="api-collection"),
    path("api/collections/<int:collection_id>/topics/", campaign_api.TopicList.as_view(), name="api-topics"),
    path("api/collections/<int:collection_id>/documents/", campaign_api.DocumentList.as_view(), name="api-documents"),
    path("api/collections/<int:collection_id>/runs/", campaign_api.RunList.as_view(), name="api-runs"),
    path("api/collections/<int:collection_id>/imports/", campaign_api.ImportCreate.as_view(), name="api-imports"),
    path("api/collections/<int:collection_id>/pool/", campaign_api.PoolView.as_view(), name="api-pool"),
    path(
        "api/collections/<int:collection_id>/assignments/",
        campaign_api.AssignmentList.as_view(),
        name="api-assignments",
    ),
    path("api/assignments/<int:assignment_id>/", campaign_api.AssignmentDetail.as_view(), name="api-assignment"),
    path("api/judgments/", judgments_api.JudgmentListCreate.as_view(), name="api-judgments"),
    re_path(r"^api/(?P<path>.*)$", api_not_found),  # last: unknown API URLs answer JSON
]

handler400 = "config.api_errors.page_bad_request"
handler403 = "config.api_errors.page_forbidden"
handler404 = "config.api_errors.page_not_found"
handler500 = "config.api_errors.page_server_error"
