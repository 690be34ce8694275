"""URLs of the evaluation pages."""

from django.urls import path

from . import views

app_name = "evaluation"
urlpatterns = [
    path("", views.leaderboard_index, name="leaderboard_index"),
    path("<int:collection_id>/", views.leaderboard, name="leaderboard"),
    path("<int:collection_id>/qrels/", views.qrels_download, name="qrels_download"),
    path("<int:collection_id>/results/", views.results_download, name="results_download"),
]
