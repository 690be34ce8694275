"""Writes of the judging world, one module per entity: every write goes through one of these functions, whether it
comes from a page, the API, an import, a command, the demo, the Django admin or a test; each is atomic and announces
what changed through `judging.signals`, inside its transaction.

    users          user_create, user_invite, user_role_set, role_add, user_active_set, password_link, token_regenerate,
                   imported_assessors (the accounts behind imported labels)
    collections    collection_create, collection_settings_update, collection_scale_update, collection_delete
    topics         topics_create, topics_upsert (an import), topic_delete
    documents      documents_create, documents_upsert (an import, batch by batch), document_delete
    runs           run_create, run_store (one run's rankings: pages, imports), run_describe, run_delete,
                   ranking_delete
    pools          pool_build, pool_build_start, pool_build_depth, pool_items_delete
    assignments    assignment_create, assignments_balance, assignments_add, assignment_reassign, assignment_delete
    judgments      judgment_record (one, from a page or the API), judgments_record_bulk (an import), judgment_delete
    adjudications  adjudication_record, adjudication_delete
    quality        assessor_pause_check, assessor_resume, assessor_labels_discard (a paused assessor's labels)
    checks         checks_schedule (gold and repeated items mixed into a queue), check_answer_record,
                   check_answer_clear
    entries        entry_judge (an assessor's save from their queue, page or API: an own item or a check, then the
                   checks topped up and the pause decided, in one transaction)
    preferences    preference_record (one comparison of two documents), preference_delete (the page's undo)
    machine_judges machine_judge_create, machine_judge_update, machine_judge_delete, machine_judge_run (the
                   foreground run), machine_judge_run_start (a Job), machine_reply_record (a reply and its label)
"""

from judging.services.adjudications import adjudication_delete, adjudication_record
from judging.services.assignments import (
    assignment_create,
    assignment_delete,
    assignment_reassign,
    assignments_add,
    assignments_balance,
)
from judging.services.collections import (
    collection_create,
    collection_delete,
    collection_scale_update,
    collection_settings_update,
    measures_canonical,
    scale_labels,
)
from judging.services.documents import document_delete, documents_create, documents_upsert
from judging.services.judgments import ItemFull, judgment_delete, judgment_record, judgments_record_bulk
from judging.services.pools import pool_build, pool_build_depth, pool_build_start, pool_items_delete
from judging.services.runs import ranking_delete, run_create, run_delete, run_store
from judging.services.topics import topic_delete, topics_create, topics_upsert
from judging.services.users import (
    imported_assessors,
    lockout_lift,
    password_link,
    token_for,
    token_regenerate,
    user_active_set,
    user_create,
    user_invite,
    user_role_set,
)

__all__ = [
    "ItemFull",
    "adjudication_delete",
    "adjudication_record",
    "assignment_create",
    "assignment_delete",
    "assignment_reassign",
    "assignments_add",
    "assignments_balance",
    "collection_create",
    "collection_delete",
    "collection_scale_update",
    "collection_settings_update",
    "document_delete",
    "documents_create",
    "documents_upsert",
    "imported_assessors",
    "judgment_delete",
    "judgment_record",
    "judgments_record_bulk",
    "lockout_lift",
    "measures_canonical",
    "password_link",
    "pool_build",
    "pool_build_depth",
    "pool_build_start",
    "pool_items_delete",
    "ranking_delete",
    "run_create",
    "run_delete",
    "run_store",
    "scale_labels",
    "token_for",
    "token_regenerate",
    "topic_delete",
    "topics_create",
    "topics_upsert",
    "user_active_set",
    "user_create",
    "user_invite",
    "user_role_set",
]
