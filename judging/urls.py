"""URLs of the judging pages."""

from django.urls import path

from judging.datasets import views as datasets
from judging.machines import views as machines
from judging.preferences import views as preferences
from judging.quality import views as pauses
from judging.rag.views import answers, nuggets
from judging.search_fetch import views as searches
from judging.tracks import views as tracks
from judging.views import adjudication, assessor, assigning, campaign, people, setup, sources

app_name = "judging"
urlpatterns = [
    path("assignments/", assessor.my_assignments, name="assignments"),
    path("judge/<int:topic_id>/", assessor.judge, name="judge"),
    path("judge/<int:topic_id>/doc/<int:document_id>/", assessor.judge_document, name="judge_document"),
    path("judge/<int:topic_id>/<int:document_id>/", assessor.judge_save, name="judge_save"),
    path("compare/<int:topic_id>/", preferences.compare, name="compare"),
    path("compare/<int:topic_id>/save/", preferences.compare_save, name="compare_save"),
    path("dashboard/", campaign.dashboard, name="dashboard"),
    path("tracks/", tracks.tracks_mine, name="tracks"),
    path("tracks/<int:collection_id>/", tracks.track, name="track"),
    path(
        "tracks/<int:collection_id>/submissions/<int:submission_id>/withdraw/",
        tracks.submission_withdraw,
        name="submission_withdraw",
    ),
    path("tracks/<int:collection_id>/organize/", tracks.track_organize, name="track_organize"),
    path("tracks/<int:collection_id>/teams/", tracks.team_new, name="team_new"),
    path("tracks/<int:collection_id>/teams/<int:team_id>/", tracks.team_edit, name="team_edit"),
    path("tracks/<int:collection_id>/freeze/", tracks.track_freeze, name="track_freeze"),
    path("tracks/<int:collection_id>/pool/", tracks.track_pool, name="track_pool"),
    path("collections/new/", setup.collection_new, name="collection_new"),
    path("collections/<int:collection_id>/settings/", setup.collection_edit, name="collection_edit"),
    path("guidelines/preview/", setup.guidelines_preview, name="guidelines_preview"),
    path("people/", people.people, name="people"),
    path("people/<int:user_id>/", people.person_update, name="person_update"),
    path("people/lockouts/", people.lockout_lift, name="lockout_lift"),
    path("collections/<int:collection_id>/", campaign.campaign, name="campaign"),
    path("collections/<int:collection_id>/standing/", campaign.campaign_standing, name="campaign_standing"),
    path("collections/<int:collection_id>/import/", campaign.import_upload, name="import"),
    path("collections/<int:collection_id>/import/dataset/", datasets.dataset_import, name="dataset_import"),
    path("collections/<int:collection_id>/sources/", sources.sources, name="sources"),
    path("collections/<int:collection_id>/sources/<int:account_id>/", sources.source_update, name="source_update"),
    path("collections/<int:collection_id>/pool/", campaign.pool, name="pool"),
    path("collections/<int:collection_id>/assignments/", assigning.collection_assignments, name="campaign_assignments"),
    path("assignments/<int:assignment_id>/reassign/", assigning.reassign, name="reassign"),
    path("collections/<int:collection_id>/adjudication/", adjudication.queue, name="adjudication"),
    path("collections/<int:collection_id>/adjudication/next/", adjudication.one_by_one, name="adjudicate_next"),
    path("adjudication/<int:topic_id>/<int:document_id>/", adjudication.decide, name="adjudicate"),
    path("jobs/<int:job_id>/", campaign.job, name="job"),
    path("jobs/<int:job_id>/retry/", campaign.job_retry, name="job_retry"),
    path("jobs/<int:job_id>/cancel/", machines.job_cancel, name="job_cancel"),
    path("pauses/<int:pause_id>/resume/", pauses.assessor_resume, name="assessor_resume"),
    path(
        "collections/<int:collection_id>/assessors/<int:user_id>/discard/",
        pauses.assessor_discard,
        name="assessor_discard",
    ),
    path("collections/<int:collection_id>/machine-judges/", machines.machine_judges, name="machine_judges"),
    path("machine-judges/<int:judge_id>/", machines.machine_judge_edit, name="machine_judge_edit"),
    path("machine-judges/<int:judge_id>/preview/", machines.machine_judge_preview, name="machine_judge_preview"),
    path("machine-judges/<int:judge_id>/run/", machines.machine_judge_run, name="machine_judge_run"),
    path("collections/<int:collection_id>/search/", searches.search_endpoints, name="search_endpoints"),
    path("search/<int:endpoint_id>/", searches.search_endpoint_edit, name="search_endpoint_edit"),
    path("search/<int:endpoint_id>/fetch/", searches.search_fetch, name="search_fetch"),
    path("search/compare/", searches.snapshot_compare, name="snapshot_compare"),
    path("machine-judges/<int:judge_id>/probes/", machines.machine_judge_probe, name="machine_judge_probe"),
    path("collections/<int:collection_id>/answers/", answers.answers, name="answers"),
    path("collections/<int:collection_id>/answers/machine/", answers.answers_machine, name="answers_machine"),
    path(
        "collections/<int:collection_id>/nuggets/adjudication/", nuggets.nugget_adjudication, name="nugget_adjudication"
    ),
    path("topics/<int:topic_id>/answers/", answers.topic_answers, name="topic_answers"),
    path("topics/<int:topic_id>/nuggets/", nuggets.nuggets, name="nuggets"),
    path("answers/<int:answer_id>/", answers.answer_judge, name="answer_judge"),
    path("answers/<int:answer_id>/assign/", answers.answer_assign, name="answer_assign"),
    path("answers/<int:answer_id>/support/", answers.answer_support, name="answer_support"),
]
