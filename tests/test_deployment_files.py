"""Static checks of the deployment files (no Docker engine runs on our machines)."""

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def compose():
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_compose_has_the_stack_with_health_checked_services():
    services = compose()["services"]
    assert {"postgres", "redis", "web", "worker", "beat", "migrate"} <= set(services)
    assert "pg_isready" in " ".join(services["postgres"]["healthcheck"]["test"])
    assert "ping" in services["redis"]["healthcheck"]["test"]


def test_app_services_share_one_image_and_wait_for_healthy_dependencies():
    services = compose()["services"]
    for name in ("web", "worker", "beat", "migrate"):
        service = services[name]
        assert service["build"] == "." and service["image"] == "relevance-workbench:latest"
        assert service["depends_on"]["postgres"]["condition"] == "service_healthy"
        assert service["depends_on"]["redis"]["condition"] == "service_healthy"
        assert service["environment"]["DATABASE_URL"].startswith("postgres://")
    for name in ("web", "worker", "beat"):
        assert services[name]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"


def test_web_and_worker_share_the_search_log_store():
    file = compose()
    for name in ("web", "worker"):
        service = file["services"][name]
        root = service["environment"]["SEARCH_LOG_ROOT"]
        assert f"search-logs:{root}" in service["volumes"]
    assert "search-logs" in file["volumes"]


def test_processes_run_the_right_programs():
    services = compose()["services"]
    assert services["web"]["command"][:2] == ["gunicorn", "config.wsgi:application"]
    assert services["worker"]["command"][:4] == ["celery", "-A", "config", "worker"]
    assert services["beat"]["command"][:4] == ["celery", "-A", "config", "beat"]


def test_the_worker_consumes_the_judgments_queue_first_and_does_without_broadcast_chatter():
    from django.conf import settings

    command = compose()["services"]["worker"]["command"]
    queues = command[command.index("-Q") + 1].split(",")
    assert queues == ["judgments", "bulk", "sweep"] == [q.name for q in settings.CELERY_TASK_QUEUES][:3]
    assert settings.CELERY_BROKER_TRANSPORT_OPTIONS["queue_order_strategy"] == "priority"
    assert {"--without-gossip", "--without-mingle", "--without-heartbeat"} <= set(command)


def test_dockerfile_installs_the_project_and_serves_with_gunicorn():
    text = (ROOT / "Dockerfile").read_text()
    assert "pip install --no-cache-dir ." in text and "collectstatic" in text and "gunicorn" in text


def test_production_settings_pass_the_deployment_checks():
    import subprocess
    import sys

    env = {
        "PATH": "/usr/bin:/bin",
        "SECRET_KEY": "a-long-random-secret-key-for-the-deploy-check-0123456789abcdef!",
        "DEBUG": "false",
        "ALLOWED_HOSTS": "example.org",
        "WORKBENCH_VAR_DIR": "/tmp/workbench-deploy-check",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_only_the_tls_proxy_is_published_and_the_app_trusts_only_its_headers():
    services = compose()["services"]
    published = {name for name, service in services.items() if service.get("ports")}
    assert published == {"proxy"}
    proxy_address = services["proxy"]["networks"]["internal"]["ipv4_address"]
    assert services["web"]["environment"]["TRUSTED_PROXIES"] == proxy_address
    assert services["web"]["environment"]["SECURE_SSL_REDIRECT"] == "true"


def test_compose_refuses_to_start_without_a_real_secret():
    environment = compose()["services"]["web"]["environment"]
    assert environment["SECRET_KEY"].startswith("${SECRET_KEY:?")  # no public default to fall back on


def _settings_in_a_subprocess(**env):
    import subprocess
    import sys

    base = {"PATH": "/usr/bin:/bin", "WORKBENCH_VAR_DIR": "/tmp/workbench-deploy-check", "ALLOWED_HOSTS": "x.org"}
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='config.settings'; django.setup()",
        ],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
    )


RANDOM_KEY = "q8Zr-3vLx_T0pWm9sKd2YbNf7hGc4JeAuR1oXi6Vt5Ly"  # made up for these tests, as random as one looks


def test_production_refuses_to_start_without_a_secret_or_with_a_public_one():
    assert "SECRET_KEY must be set" in _settings_in_a_subprocess(DEBUG="false").stderr
    for weak_key in (
        "change-me-in-production-please-0123456789abcdef",
        "django-insecure-" + "abcdefghijklmnopqrstuvwxyz0123456789-_+=!@",  # 58 characters, a published prefix
        "k" * 60,
    ):
        weak = _settings_in_a_subprocess(DEBUG="false", SECRET_KEY=weak_key)
        assert "SECRET_KEY must be set" in weak.stderr, weak_key


def test_debug_is_off_by_default_once_a_database_is_configured():
    probe = _settings_in_a_subprocess(DATABASE_URL="postgres://x@127.0.0.1/x", SECRET_KEY=RANDOM_KEY)
    assert probe.returncode == 0, probe.stderr
    import subprocess
    import sys

    printed = subprocess.run(
        [sys.executable, "-c", "from django.conf import settings; print(settings.DEBUG)"],
        cwd=ROOT,
        env={
            "PATH": "/usr/bin:/bin",
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DATABASE_URL": "postgres://x@127.0.0.1/x",
            "SECRET_KEY": RANDOM_KEY,
            "WORKBENCH_VAR_DIR": "/tmp/workbench-deploy-check",
        },
        capture_output=True,
        text=True,
    )
    assert printed.stdout.strip() == "False", printed.stderr


def test_the_embedded_mode_names_its_in_memory_broker_so_kombu_never_warns():
    import subprocess
    import sys

    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import django; django.setup(); from django.conf import settings; from kombu import Connection;"
            "c = Connection(settings.CELERY_BROKER_URL);"
            "print(settings.CELERY_TASK_ALWAYS_EAGER, c.transport_cls, c.hostname)",
        ],
        cwd=ROOT,
        env={
            "PATH": "/usr/bin:/bin",
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "WORKBENCH_VAR_DIR": "/tmp/wb-embedded",
        },
        capture_output=True,
        text=True,
    )
    assert probe.stdout.split() == ["True", "memory", "localhost"], probe.stderr


def test_a_web_worker_loads_every_view_as_it_starts_not_on_its_first_request():
    """Otherwise the first save after a deploy or a restart waited about a second for the imports."""
    import os
    import subprocess
    import sys

    script = (
        "import sys, config.wsgi; "
        "print(all(m in sys.modules for m in ('config.urls', 'judging.views.assessor', 'evaluation.api')))"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    found = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env | {"DEBUG": "true"}, capture_output=True, text=True
    )
    assert found.returncode == 0, found.stderr[-2000:]
    assert found.stdout.strip() == "True"


MODEL_SERVER_TASKS = {
    "judging.tasks.machine_judge_run",
    "judging.tasks.machine_judge_probe",
    "judging.tasks.nuggets_propose",
    "judging.tasks.nuggets_assign",
    "judging.tasks.support_judge",
}


def test_every_job_task_runs_on_the_jobs_queue_whose_worker_is_not_the_main_one():
    """A long import on the main worker's processes held a judgment's recompute 84 times longer than usual."""
    from django.conf import settings

    from config.celery import app

    app.loader.import_default_modules()
    job_tasks = {name for name, task in app.tasks.items() if name.startswith(("judging.", "evaluation."))
                 and "job_id" in task.run.__code__.co_varnames[: task.run.__code__.co_argcount]}  # fmt: skip
    assert len(job_tasks) >= 5
    for name in job_tasks - MODEL_SERVER_TASKS:
        assert settings.CELERY_TASK_ROUTES[name] == {"queue": "jobs"}, name
    for name in MODEL_SERVER_TASKS:  # they wait on a model's server: the machine queue's worker takes them
        assert settings.CELERY_TASK_ROUTES[name] == {"queue": "machine"}, name
    command = compose()["services"]["jobs-worker"]["command"]
    assert command[command.index("-Q") + 1] == "jobs"
    main = compose()["services"]["worker"]["command"]
    assert "jobs" not in main[main.index("-Q") + 1].split(",")


def test_machine_judges_runs_have_a_queue_and_a_worker_of_their_own():
    from django.conf import settings

    command = compose()["services"]["machine-worker"]["command"]
    assert command[command.index("-Q") + 1] == "machine" == settings.CELERY_TASK_QUEUES[-1].name
    assert settings.CELERY_TASK_ROUTES["judging.tasks.machine_judge_run"] == {"queue": "machine"}
    assert "machine" not in compose()["services"]["worker"]["command"][5]  # the main worker never waits on a model
