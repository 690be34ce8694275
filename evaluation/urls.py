"""URLs of the evaluation pages."""

from django.urls import path

from . import views

app_name = "evaluation"
urlpatterns = [
    path("", views.leaderboard_index, name="leaderboard_index"),
    path("<int:collection_id>/", views.leaderboard, name="leaderboard"),
]
