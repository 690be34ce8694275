"""Setting up a campaign in the browser: collections created and edited with their scale, measures validated by
name, guidelines previewed; people added by invitation link, given roles, deactivated; every account's API token."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.authtoken.models import Token

from judging import services
from judging.models import Collection
from tests.factories import make_collection, make_user

pytestmark = pytest.mark.django_db

FORM = {
    "name": "robust04-graded",
    "description": "",
    "max_grade": "2",
    "relevance_threshold": "1",
    "assessors_per_item": "2",
    "disagreement_tolerance": "0",
    "consensus_method": "majority",
    "measures": ["AP", "nDCG@10"],
    "more_measures": "P@50, ndcg_cut.5",
    "agreement_measure": "AP",
    "blind": "on",
    "guidelines": "# Read carefully",
    "grade_0_label": "Not relevant",
    "grade_1_label": "Somewhat",
    "grade_2_label": "Highly relevant",
    "grade_2_description": "answers it all",
    "grade_3_label": "ignored beyond the scale",
}


@pytest.fixture
def admin_client(client):
    client.force_login(make_user("admin"))
    return client


def test_an_admin_creates_a_graded_collection_with_its_labels_and_measures(admin_client):
    response = admin_client.post("/judging/collections/new/", FORM)
    assert response.status_code == 302, response.content.decode()[:2000]
    collection = Collection.objects.get(name="robust04-graded")
    assert [(g.value, g.label) for g in collection.grades.all()] == [
        (0, "Not relevant"),
        (1, "Somewhat"),
        (2, "Highly relevant"),
    ]
    assert collection.measures == ["AP", "nDCG@10", "P@50", "nDCG@5"]  # typed as ndcg_cut.5: stored canonical
    assert (collection.max_grade, collection.assessors_per_item) == (2, 2)


def test_an_unknown_measure_is_refused_naming_it_and_nothing_is_created(admin_client):
    response = admin_client.post("/judging/collections/new/", {**FORM, "more_measures": "P@5, nonsense@3"})
    assert response.status_code == 200 and "nonsense@3" in response.content.decode()
    assert not Collection.objects.exists()


def test_a_threshold_above_the_scale_is_refused(admin_client):
    response = admin_client.post("/judging/collections/new/", {**FORM, "relevance_threshold": "3"})
    assert b"must be between 1 and the scale" in response.content and not Collection.objects.exists()


def test_editing_settings_rewords_labels_and_the_scale_is_fixed_once_judged(admin_client):
    collection = make_collection(max_grade=3, topics=1, runs=1)
    form = {**FORM, "name": collection.name, "max_grade": "3", "grade_3_label": "Perfect!"}
    response = admin_client.post(f"/judging/collections/{collection.id}/settings/", form)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert collection.grades.get(value=3).label == "Perfect!"
    topic = collection.topics.get()
    assessor = make_user("assessor")
    services.assignment_create(assessor=assessor, topic=topic)
    services.judgment_record(assessor=assessor, topic=topic, document=topic.pool_items.first().document, grade=3)
    page = admin_client.get(f"/judging/collections/{collection.id}/settings/").content.decode()
    assert "its size is fixed" in page
    admin_client.post(f"/judging/collections/{collection.id}/settings/", {**form, "max_grade": "1"})
    collection.refresh_from_db()
    assert collection.max_grade == 3  # the disabled field keeps the stored scale


def test_the_guidelines_preview_is_sanitised_markdown(admin_client):
    response = admin_client.post("/judging/guidelines/preview/", {"guidelines": "**bold** <script>x()</script>"})
    assert b"<strong>bold</strong>" in response.content and b"<script" not in response.content


def test_an_admin_invites_a_person_who_sets_a_password_with_the_one_time_link(admin_client):
    response = admin_client.post("/judging/people/", {"username": "carol", "role": "assessor", "email": ""})
    link = response.content.decode().split('id="invitation-link">')[1].split("<")[0]
    carol = get_user_model().objects.get(username="carol")
    assert not carol.has_usable_password() and carol.groups.filter(name="assessor").exists()
    visitor = Client()
    form = visitor.get(link, follow=True)
    assert b"Choose your password" in form.content
    assert 'id="username">carol<' in form.content.decode()  # an invitee is told the name they log in with
    done = visitor.post(
        form.redirect_chain[-1][0],
        {"new_password1": "a-long-pass-9876", "new_password2": "a-long-pass-9876"},
        follow=True,
    )
    assert b"Log in as carol" in done.content
    assert Client().post("/accounts/login/", {"username": "carol", "password": "a-long-pass-9876"}).status_code == 302
    assert b"no longer works" in Client().get(link, follow=True).content  # one time only


def test_roles_change_and_a_deactivated_person_cannot_log_in(admin_client):
    person = make_user("assessor")
    admin_client.post(f"/judging/people/{person.id}/", {"action": "role", "role": "researcher"})
    person.refresh_from_db()
    assert list(person.groups.values_list("name", flat=True)) == ["researcher"] and not person.is_staff
    admin_client.post(f"/judging/people/{person.id}/", {"action": "deactivate"})
    login = Client().post("/accounts/login/", {"username": person.username, "password": "pw-for-tests-123"})
    assert login.status_code == 200  # the form again: refused


def test_an_admin_cannot_deactivate_themselves(client):
    admin = make_user("admin")
    client.force_login(admin)
    page = client.post(f"/judging/people/{admin.id}/", {"action": "deactivate"}, follow=True)
    assert b"cannot deactivate your own account" in page.content
    admin.refresh_from_db()
    assert admin.is_active


def test_every_account_page_shows_its_api_token_and_regenerates_it(client):
    researcher = make_user("researcher")
    client.force_login(researcher)
    page = client.get("/accounts/me/").content.decode()
    token = Token.objects.get(user=researcher).key
    assert token in page
    unconfirmed = client.post("/accounts/me/", {"action": "regenerate"}, follow=True)
    assert Token.objects.get(user=researcher).key == token and b"Tick the box first" in unconfirmed.content
    client.post("/accounts/me/", {"action": "regenerate", "confirm": "yes"})
    assert Token.objects.get(user=researcher).key != token


def test_people_pages_are_for_admins_only(client):
    client.force_login(make_user("researcher"))
    assert client.get("/judging/people/").status_code == 403
    assert client.get("/judging/collections/new/").status_code == 403


def test_the_people_page_keeps_the_admins_own_navigation(admin_client):
    page = admin_client.get("/judging/people/").content.decode()
    nav = page[page.index('<nav aria-label="Main">') : page.index("</nav>")]
    assert ">My assignments<" not in nav and ">Dashboard<" in nav
    assert '<option value="assessor" selected>' in page


def test_the_last_active_admin_cannot_be_demoted_or_deactivated(client):
    admin = make_user("admin")
    client.force_login(admin)
    page = client.post(
        f"/judging/people/{admin.id}/", {"action": "role", "role": "assessor", "confirm": "yes"}, follow=True
    )
    assert b"last active admin" in page.content
    assert admin.groups.filter(name="admin").exists() and client.get("/judging/people/").status_code == 200


def test_an_admin_demotes_themself_only_when_confirmed_and_another_admin_remains(client):
    admin, other = make_user("admin"), make_user("admin")
    client.force_login(admin)
    page = client.post(f"/judging/people/{admin.id}/", {"action": "role", "role": "assessor"}, follow=True)
    assert b"confirm that you give up your own admin role" in page.content
    assert admin.groups.filter(name="admin").exists()
    client.post(f"/judging/people/{admin.id}/", {"action": "role", "role": "assessor", "confirm": "yes"})
    assert not admin.groups.filter(name="admin").exists()
    assert other.groups.filter(name="admin").exists()
    with pytest.raises(Exception, match="last active admin"):
        services.user_active_set(user=other, active=False, by=make_user("researcher"))


def test_a_deactivated_persons_outstanding_password_link_no_longer_works(admin_client):
    person = make_user("assessor")
    link = services.password_link(user=person)
    services.user_active_set(user=person, active=False, by=make_user("admin"))
    assert b"no longer works" in Client().get(link, follow=True).content
