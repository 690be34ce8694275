"""What judging announces when its data changes, for apps that derive results from it (evaluation's staleness).

judging imports nothing of the apps that listen: each write service sends one of these inside its own transaction,
with ids only, and a listener connects in its `AppConfig.ready()` (as Django's contrib apps connect `post_migrate`).
A listener's work runs in the writer's transaction, so a change and the news of it commit or roll back together.
Receivers are plain calls with no logic of their own; a receiver's exception fails the write, which is the point:
a change nobody could mark stale must not be saved.
"""

from django.dispatch import Signal

# The grades that count for these topics changed: judgments recorded, changed or deleted, adjudications made or
# withdrawn. Arguments: topic_ids (a sorted list), collection_id (int or None when the writer does not know it).
labels_changed = Signal()

# What the runs retrieved for these topics changed (a run imported, replaced or deleted, a ranking removed), or the
# documents they name did; the labels did not. Arguments: topic_ids, collection_id (int or None).
rankings_changed = Signal()

# Settings of a collection changed, or its topic set did. Arguments: collection_id, changed (a frozenset of the
# Collection field names that changed; "topics" when a topic was removed).
collection_changed = Signal()

# A collection is about to be deleted, inside the deleting transaction. Arguments: collection_id. Listeners delete
# what they keep outside the database (after commit) and anything the cascade would not reach.
collection_deleting = Signal()

# What RAG answers are scored from changed for these topics: answers imported or deleted, nuggets edited, an
# assignment or a support judgment recorded. Arguments: topic_ids (a sorted list), collection_id (int or None).
answers_changed = Signal()
