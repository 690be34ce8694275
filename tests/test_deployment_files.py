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


def test_processes_run_the_right_programs():
    services = compose()["services"]
    assert services["web"]["command"][:2] == ["gunicorn", "config.wsgi:application"]
    assert services["worker"]["command"][:4] == ["celery", "-A", "config", "worker"]
    assert services["beat"]["command"][:4] == ["celery", "-A", "config", "beat"]


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
