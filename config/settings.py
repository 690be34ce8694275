"""Settings, all from the environment. With no variables set: embedded mode (SQLite under var/, no Redis, Celery
tasks run in-process right after the transaction commits). DATABASE_URL and REDIS_URL switch to the real services.
"""

import ipaddress
import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from kombu import Queue


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    return default if value is None else value.strip().lower() in ("1", "true", "yes", "on")


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("WORKBENCH_VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(parents=True, exist_ok=True)

# DEBUG is on by default only in the embedded mode (no DATABASE_URL): a deployment never runs with it by accident.
DEBUG = env_bool("DEBUG", not os.environ.get("DATABASE_URL"))
# Words that mark a placeholder or a published key wherever they stand (Django's startproject writes
# "django-insecure-..." keys), and a key of few distinct characters ("k" * 60) is no secret either.
WEAK_SECRETS = ("change-me", "changeme", "insecure", "build-only", "placeholder", "example")
SECRET_KEY = os.environ.get("SECRET_KEY") or ("insecure-development-key-" + "x" * 40 if DEBUG else None)
_weak = (
    not SECRET_KEY
    or len(SECRET_KEY) < 40
    or len(set(SECRET_KEY)) < 16
    or SECRET_KEY.lower().startswith("secret")
    or any(word in SECRET_KEY.lower() for word in WEAK_SECRETS)
)
if not DEBUG and _weak and os.environ.get("WORKBENCH_BUILD_ONLY") != "1":
    raise RuntimeError(
        "SECRET_KEY must be set to a long random value when DEBUG is off, e.g. "
        "python -c 'import secrets; print(secrets.token_urlsafe(50))'"
    )
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver" if DEBUG else "")
# Addresses (or networks) of the TLS-terminating proxies whose X-Forwarded-* headers are believed; nobody else's.
TRUSTED_PROXIES = env_list("TRUSTED_PROXIES", "")
TRUSTED_PROXY_NETWORKS = [ipaddress.ip_network(entry, strict=False) for entry in TRUSTED_PROXIES]
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "axes",
    "judging",
    "evaluation",
]

MIDDLEWARE = [
    "config.security.TrustedProxyMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "config.security.ContentSecurityPolicyMiddleware",
    "config.security.RefuseNulParametersMiddleware",
    "config.security.UploadSizeLimitMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "axes.middleware.AxesMiddleware",
    "config.ids.IdsInRangeMiddleware",
    "config.api_errors.ConflictMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "judging.context_processors.navigation",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{VAR_DIR / 'workbench.sqlite3'}", conn_max_age=int(os.environ.get("CONN_MAX_AGE", "60"))
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Parameters bound by the server, and a statement run five times on a connection prepared there: PostgreSQL then
    # plans it once, not on every run (a save's topic-with-settings read spent 1.7 ms planning, 0.4 running). Behind
    # a pooler in transaction mode (PgBouncer) prepared statements would be lost between transactions:
    # DATABASE_PREPARE_THRESHOLD=off keeps the server's binding and prepares nothing.
    _prepare = os.environ.get("DATABASE_PREPARE_THRESHOLD", "5")
    DATABASES["default"]["OPTIONS"] = {
        "server_side_binding": True,
        "prepare_threshold": None if _prepare.lower() in ("off", "none", "") else int(_prepare),
    }
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # IMMEDIATE transactions take the write lock up front, so concurrent writers wait instead of failing.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    # Tests on a file, not in memory: an in-memory database is shared between the live server's threads through
    # SQLite's shared cache, whose table locks fail at once ("database table is locked") instead of waiting, so a
    # browser test's overlapping requests (a save beside a prefetch) failed now and then.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test-workbench.sqlite3")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
AUTHENTICATION_BACKENDS = [
    # First: refuses a locked-out account or address before any password is checked.
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# Search logs' columnar stores (Parquet by day, read by DuckDB), one folder per log. Web and workers must see the same
# folder: one machine, or a shared volume (docker-compose.yml mounts one).
SEARCH_LOG_ROOT = Path(os.environ.get("SEARCH_LOG_ROOT", VAR_DIR / "search-logs"))

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(exist_ok=True)
STATICFILES_DIRS = [BASE_DIR / "templates" / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}
MEDIA_ROOT = VAR_DIR / "media"
# Limits a public deployment needs; each refusal says which limit and how to change it.
# ir_datasets reads what is under IR_DATASETS_HOME; only with this on may it download what a dataset lacks.
WORKBENCH_DATASETS_DOWNLOAD = os.environ.get("WORKBENCH_DATASETS_DOWNLOAD", "") in ("1", "true", "yes")
# A machine judge whose gullibility probes flip more than this share of any kind's labels to relevant is flagged
# on every page that uses its labels (Alaofi et al. 2025 found flips of this order in common LLM judges).
MACHINE_GULLIBILITY_LIMIT = float(os.environ.get("WORKBENCH_GULLIBILITY_LIMIT", 0.1))
# Each worker process keeps topics' prepared rankings in memory up to this size (evaluation/ranking_cache.py).
WORKBENCH_RANKING_CACHE_MB = float(os.environ.get("WORKBENCH_RANKING_CACHE_MB", 256))

WORKBENCH_LIMITS = {
    "upload_bytes": int(os.environ.get("WORKBENCH_MAX_UPLOAD_BYTES", 100 << 20)),
    "line_bytes": int(os.environ.get("WORKBENCH_MAX_LINE_BYTES", 10_000)),
    "record_bytes": int(os.environ.get("WORKBENCH_MAX_RECORD_BYTES", 4 << 20)),
    "topics_per_file": int(os.environ.get("WORKBENCH_MAX_TOPICS_PER_FILE", 20_000)),
    "documents_per_file": int(os.environ.get("WORKBENCH_MAX_DOCUMENTS_PER_FILE", 2_000_000)),
    "trial_run_bytes": int(os.environ.get("WORKBENCH_MAX_TRIAL_RUN_BYTES", 50 << 20)),
    "trial_runs_per_hour": int(os.environ.get("WORKBENCH_TRIAL_RUNS_PER_HOUR", 30)),
    "api_anonymous_rate": os.environ.get("WORKBENCH_API_ANONYMOUS_RATE", "120/min"),
    "api_user_rate": os.environ.get("WORKBENCH_API_USER_RATE", "3000/min"),
    "login_failures": int(os.environ.get("WORKBENCH_LOGIN_FAILURES", 10)),
    "address_failures": int(os.environ.get("WORKBENCH_ADDRESS_FAILURES", 100)),
    "token_failures": int(os.environ.get("WORKBENCH_TOKEN_FAILURES", 20)),
    "lockout_seconds": int(os.environ.get("WORKBENCH_LOCKOUT_SECONDS", 15 * 60)),
}
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024

# Redis: the Celery broker and the cache. Without it (embedded mode) tasks run eagerly, after commit.
REDIS_URL = os.environ.get("REDIS_URL", "")
_broker = os.environ.get("CELERY_BROKER_URL", REDIS_URL)
CELERY_TASK_ALWAYS_EAGER = not _broker
# Embedded mode has no worker: a Job (an import, a machine judge's run) runs in a thread of the web process, so the
# request that started it answers at once and its page shows its progress, as with a worker.
WORKBENCH_JOBS_IN_THREADS = not _broker
# Embedded mode never connects to a broker (tasks run eagerly); naming the in-memory one keeps kombu from warning
# that no host was given.
CELERY_BROKER_URL = _broker or "memory://localhost//"
# A Redis broker goes through the repaired transport (config/broker.py: a worker outlives Redis going away).
CELERY_BROKER_TRANSPORT = "config.broker:Transport" if CELERY_BROKER_URL.startswith(("redis://", "rediss://")) else None
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A worker outlives its broker: it retries the connection for as long as the broker is away (Celery's default gives
# up after 100 tries and exits), and a task running when the connection drops is cancelled and delivered again
# (every task is idempotent), rather than acknowledged later on a channel that no longer exists.
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
# A publish must not hang a judgment save when Redis is down: no retries on the request path, short timeouts; what
# is not sent stays marked in the database and the periodic sweeps send it later.
CELERY_TASK_PUBLISH_RETRY = False
CELERY_BROKER_CONNECTION_TIMEOUT = 0.5
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "max_retries": 0,
    "socket_connect_timeout": 0.5,
    # Above the workers' 1 s blocking pop, or they would time out and reconnect between every poll.
    "socket_timeout": 5,
    # The queues in the order given, not in turn: a waiting judgment's recompute is taken before any bulk work.
    "queue_order_strategy": "priority",
}
# Three queues, consumed in this order by the main worker (`celery worker -Q judgments,bulk,sweep`): an assessor's
# change never waits behind an import's bulk recomputes, and what the sweep sends again waits behind both
# (evaluation/services/staleness.py).
# Two more hold long work with workers of their own, so that neither can take every process of the main worker
# and hold up a judgment's recompute: "jobs" (imports of files, archives and search logs, pool builds, whole
# recomputes, trial runs: a big archive holds a process for as long as it reads) and "machine" (machine judges'
# runs, which wait on a model's server for minutes or hours). A worker started with no -Q (tests, a one-process
# deployment) takes all five, in this order.
CELERY_TASK_QUEUES = [Queue(name) for name in ("judgments", "bulk", "sweep", "jobs", "machine")]
CELERY_TASK_DEFAULT_QUEUE = "bulk"
JOB_QUEUE = "jobs"
CELERY_TASK_ROUTES = {
    "evaluation.tasks.recompute_topic": {"queue": "judgments"},
    # The collection-wide agreement reads every topic (near a second at 50 topics x 100 runs): long work, on the
    # jobs queue's worker, so that it never holds a judgment's recompute behind it (it did, at p95).
    "evaluation.tasks.recompute_collection_agreement": {"queue": JOB_QUEUE},
    "evaluation.tasks.recompute_answer_topic": {"queue": "judgments"},
    "evaluation.tasks.sweep_stale_topics": {"queue": "judgments"},
    "evaluation.tasks.recount_run_totals": {"queue": "sweep"},
    "judging.tasks.sweep_jobs": {"queue": "judgments"},
    "judging.tasks.search_fetches_due": {"queue": "judgments"},
    "judging.tasks.import_file": {"queue": JOB_QUEUE},
    "judging.tasks.build_pool": {"queue": JOB_QUEUE},
    "evaluation.tasks.recompute_collection": {"queue": JOB_QUEUE},
    "evaluation.tasks.trial_run": {"queue": JOB_QUEUE},
    "evaluation.tasks.import_search_log": {"queue": JOB_QUEUE},
    "judging.tasks.search_fetch": {"queue": JOB_QUEUE},
    "judging.tasks.import_dataset": {"queue": JOB_QUEUE},
    "judging.tasks.machine_judge_run": {"queue": "machine"},
    "judging.tasks.machine_judge_probe": {"queue": "machine"},  # calls the model server, as a run does
    "judging.tasks.nuggets_propose": {"queue": "machine"},
    "judging.tasks.nuggets_assign": {"queue": "machine"},
    "judging.tasks.support_judge": {"queue": "machine"},
}
CELERY_BEAT_SCHEDULE = {
    "sweep-stale-topics": {"task": "evaluation.tasks.sweep_stale_topics", "schedule": timedelta(seconds=5)},
    "sweep-jobs": {"task": "judging.tasks.sweep_jobs", "schedule": timedelta(seconds=15)},
    "search-fetches-due": {"task": "judging.tasks.search_fetches_due", "schedule": timedelta(minutes=5)},
}

if REDIS_URL:
    _redis_cache = {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        # Short timeouts: a cache that is down must not hold a request (throttles then let it through).
        "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
    }
    CACHES = {"default": _redis_cache, "throttle": {**_redis_cache, "KEY_PREFIX": "throttle"}}
else:
    CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
        "throttle": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "throttle"},
    }

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Token first: an anonymous call then gets 401 with a WWW-Authenticate challenge, not 403.
        "config.throttling.ThrottledTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PARSER_CLASSES": [
        "config.parsers.BoundedJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_THROTTLE_CLASSES": ["config.throttling.AddressThrottle", "config.throttling.AccountThrottle"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 100,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "config.api_errors.api_exception_handler",
    # `?format=` names an export's file format (trec, csv, jsonl, json), not a DRF renderer.
    "URL_FORMAT_OVERRIDE": None,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Relevance Workbench API",
    "DESCRIPTION": "Collections, pools, judgments, qrels and trec_eval-exact results.",
    "VERSION": "0.1.0",
    # The docs page's Swagger UI is served from the sidecar package, not a CDN: the app works offline.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    # Two choice sets share a field name ("kind"): each gets its own schema name.
    "ENUM_NAME_OVERRIDES": {
        "LabelSourceKindEnum": "judging.sources.models.SourceKind",
        "LabelSourceRoleEnum": "judging.sources.models.SourceRole",
    },
}

# Login throttling (django-axes, config/lockouts.py): after `login_failures` wrong passwords for one account from one
# address, that pair is refused; after `address_failures` from one address over all accounts, that address is. Both
# the login page and the admin login, until the lockout expires or an admin lifts it on the People page.
AXES_HANDLER = "config.lockouts.PairLockoutHandler"
AXES_FAILURE_LIMIT = WORKBENCH_LIMITS["login_failures"]
AXES_COOLOFF_TIME = timedelta(seconds=WORKBENCH_LIMITS["lockout_seconds"])
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address"]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_HTTP_RESPONSE_CODE = 429
AXES_VERBOSE = False

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"expected_refusals": {"()": "config.logs.ExpectedRefusalsWithoutTraceback"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["expected_refusals"]}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    # Not CELERY_LOG_LEVEL: a celery worker sets that variable itself, to a number, for its child processes.
    "loggers": {
        "celery": {"level": os.environ.get("WORKBENCH_CELERY_LOG_LEVEL", "WARNING")},
        # httpx logs every request at INFO; a run of thousands of calls would drown the log.
        "httpx": {"level": "WARNING"},
        "httpcore": {"level": "WARNING"},
        "axes": {"level": "WARNING"},
    },
}

# Safe to set: TrustedProxyMiddleware removes the header from anyone but a configured proxy.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
AXES_IPWARE_META_PRECEDENCE_ORDER = ["REMOTE_ADDR"]
if not DEBUG:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_CONTENT_TYPE_NOSNIFF = True
