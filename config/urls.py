"""Top-level URL configuration: pages, accounts, the admin, and each app's API URLs (`judging/api/urls.py`,
`evaluation/api_urls.py`) under /api/."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.shortcuts import redirect
from django.templatetags.static import static
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularSwaggerSplitView

from config.api_errors import api_not_found
from config.schema import SchemaView
from judging.views import home
from judging.views.people import SetPasswordView, account

urlpatterns = [
    path("", home, name="home"),
    # Browsers ask for /favicon.ico whatever the page says; answer with the icon instead of a logged 404.
    path("favicon.ico", lambda request: redirect(static("favicon.svg"), permanent=True)),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/me/", account, name="account"),
    path(
        "accounts/set-password/<uidb64>/<token>/",
        SetPasswordView.as_view(),
        name="password_reset_confirm",
    ),
    path("accounts/set-password/done/", auth_views.PasswordResetCompleteView.as_view(), name="password_reset_complete"),
    path("accounts/password/", auth_views.PasswordChangeView.as_view(), name="password_change"),
    path("accounts/password/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
    path("admin/", admin.site.urls),
    path("judging/", include("judging.urls")),
    path("results/", include("evaluation.urls")),
    path("api/schema/", SchemaView.as_view(), name="api-schema"),
    # The split view serves Swagger UI's start-up script as a file: the Content-Security-Policy allows no inline one.
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/collections/<int:collection_id>/", include("evaluation.api_urls")),
    path("api/", include("judging.api.urls")),
    re_path(r"^api/(?P<path>.*)$", api_not_found),  # last: unknown API URLs answer JSON
]

handler400 = "config.api_errors.page_bad_request"
handler403 = "config.api_errors.page_forbidden"
handler404 = "config.api_errors.page_not_found"
handler500 = "config.api_errors.page_server_error"
