"""URLs of the judging app's API (included under /api/): the campaign, jobs and judgments."""

from django.urls import path

from judging.api import campaign, judgments, sources
from judging.datasets import api as datasets
from judging.jobs import api as jobs
from judging.machines import api as machines
from judging.rag import api as answers
from judging.search_fetch import api as searches
from judging.tracks import api as tracks

urlpatterns = [
    path("jobs/<int:job_id>/", jobs.JobView.as_view(), name="api-job"),
    path("collections/", campaign.CollectionList.as_view(), name="api-collections"),
    path("collections/<int:collection_id>/", campaign.CollectionDetail.as_view(), name="api-collection"),
    path("collections/<int:collection_id>/topics/", campaign.TopicList.as_view(), name="api-topics"),
    path("collections/<int:collection_id>/documents/", campaign.DocumentList.as_view(), name="api-documents"),
    path("collections/<int:collection_id>/runs/", campaign.RunList.as_view(), name="api-runs"),
    path("collections/<int:collection_id>/imports/", campaign.ImportCreate.as_view(), name="api-imports"),
    path("collections/<int:collection_id>/datasets/", datasets.DatasetImport.as_view(), name="api-datasets"),
    path("collections/<int:collection_id>/pool/", campaign.PoolView.as_view(), name="api-pool"),
    path("collections/<int:collection_id>/assignments/", campaign.AssignmentList.as_view(), name="api-assignments"),
    path("assignments/<int:assignment_id>/", campaign.AssignmentDetail.as_view(), name="api-assignment"),
    path("collections/<int:collection_id>/standing/", campaign.CollectionStanding.as_view(), name="api-standing"),
    path("collections/<int:collection_id>/sources/", sources.SourceList.as_view(), name="api-sources"),
    path(
        "collections/<int:collection_id>/sources/<int:account_id>/",
        sources.SourceDetail.as_view(),
        name="api-source",
    ),
    path("judgments/", judgments.JudgmentListCreate.as_view(), name="api-judgments"),
    path("jobs/<int:job_id>/cancel/", machines.JobCancel.as_view(), name="api-job-cancel"),
    path(
        "collections/<int:collection_id>/machine-judges/",
        machines.MachineJudgeList.as_view(),
        name="api-machine-judges",
    ),
    path("machine-judges/<int:judge_id>/", machines.MachineJudgeDetail.as_view(), name="api-machine-judge"),
    path("machine-judges/<int:judge_id>/preview/", machines.MachineJudgePreview.as_view(), name="api-machine-preview"),
    path("machine-judges/<int:judge_id>/runs/", machines.MachineJudgeRun.as_view(), name="api-machine-runs"),
    path("machine-judges/<int:judge_id>/probes/", machines.MachineJudgeProbes.as_view(), name="api-machine-probes"),
    path("machine-judges/<int:judge_id>/labels/", machines.MachineJudgeLabels.as_view(), name="api-machine-labels"),
    path("topics/<int:topic_id>/queue/", machines.AssessorQueue.as_view(), name="api-assessor-queue"),
    path(
        "collections/<int:collection_id>/search-endpoints/",
        searches.SearchEndpointList.as_view(),
        name="api-search-endpoints",
    ),
    path("search-endpoints/<int:endpoint_id>/", searches.SearchEndpointDetail.as_view(), name="api-search-endpoint"),
    path("search-endpoints/<int:endpoint_id>/try/", searches.SearchEndpointTry.as_view(), name="api-search-try"),
    path(
        "search-endpoints/<int:endpoint_id>/snapshots/", searches.SearchSnapshots.as_view(), name="api-search-snapshots"
    ),
    path("collections/<int:collection_id>/answer-runs/", answers.AnswerRuns.as_view(), name="api-answer-runs"),
    path("topics/<int:topic_id>/nuggets/", answers.TopicNuggets.as_view(), name="api-topic-nuggets"),
    path("nuggets/<int:nugget_id>/", answers.NuggetDetail.as_view(), name="api-nugget"),
    path("answers/<int:answer_id>/assignments/", answers.AnswerAssignments.as_view(), name="api-answer-assignments"),
    path("answers/<int:answer_id>/support/", answers.AnswerSupport.as_view(), name="api-answer-support"),
    path("machine-judges/<int:judge_id>/nuggets/", answers.MachineNuggetWork.as_view(), name="api-machine-nuggets"),
    path("collections/<int:collection_id>/teams/", tracks.TeamList.as_view(), name="api-teams"),
    path("collections/<int:collection_id>/teams/<int:team_id>/", tracks.TeamDetail.as_view(), name="api-team"),
    path("collections/<int:collection_id>/submissions/", tracks.SubmissionList.as_view(), name="api-submissions"),
    path(
        "collections/<int:collection_id>/submissions/pool/",
        tracks.SubmissionPool.as_view(),
        name="api-submissions-pool",
    ),
    path(
        "collections/<int:collection_id>/submissions/<int:submission_id>/",
        tracks.SubmissionDetail.as_view(),
        name="api-submission",
    ),
    path("search-snapshots/compare/", searches.SnapshotComparison.as_view(), name="api-snapshot-compare"),
]
