"""URLs of the judging pages."""

from django.urls import path

from . import views

app_name = "judging"
urlpatterns = [
    path("assignments/", views.assignments, name="assignments"),
    path("judge/<int:topic_id>/", views.judge, name="judge"),
    path("judge/<int:topic_id>/<int:document_id>/", views.judge_document, name="judge_document"),
    path("dashboard/", views.dashboard, name="dashboard"),
    path("collections/<int:collection_id>/import/", views.import_upload, name="import"),
    path("jobs/<int:job_id>/", views.job, name="job"),
]
