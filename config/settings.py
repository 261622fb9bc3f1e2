"""Settings. Everything an operator changes comes from the environment (see README, Configuration).

Embedded defaults run the whole site on one machine: SQLite in STATE_DIR and a local Redis.
"""

import os
import re
import secrets
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from .env import env_bool, env_float, env_int, env_list, env_networks, env_rate, env_str, is_local_host

BASE_DIR = Path(__file__).resolve().parent.parent
STATE_DIR = Path(env_str("STATE_DIR", str(BASE_DIR / "var")))
STATE_DIR.mkdir(parents=True, exist_ok=True)

DEBUG = env_bool("DEBUG", False)
HTTPS = env_bool("HTTPS", False)


def _secret_key() -> str:
    """SECRET_KEY from the environment; on a single machine, one generated once into STATE_DIR."""
    key = env_str("SECRET_KEY")
    if key:
        if len(key) < 50:
            raise ImproperlyConfigured("SECRET_KEY must be at least 50 characters long")
        return key
    path = STATE_DIR / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(64))
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = _secret_key()
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])


# The web port of the run command (bin/run, default 8000), which the default SITE_URL follows.
PORT = env_int("PORT", 8000)
if not 0 < PORT < 65536:
    raise ImproperlyConfigured(f"PORT must be a TCP port (1 to 65535), got {PORT}")


def _site_url() -> str:
    """The public address, baked into signed credentials and QR codes that outlive any later fix: a
    site that answers for hosts other than this machine must say where it lives."""
    url = env_str("SITE_URL").rstrip("/")
    parts = urlsplit(url)
    if url and (parts.scheme not in ("http", "https") or not parts.hostname or parts.path or parts.query):
        raise ImproperlyConfigured(f"SITE_URL must be an address such as https://course.example.org, got {url!r}")
    public_hosts = [host for host in ALLOWED_HOSTS if not is_local_host(host)]
    if not DEBUG and public_hosts and (not url or is_local_host(parts.hostname)):
        example = public_hosts[0].strip(".*") or "course.example.org"
        raise ImproperlyConfigured(
            f"SITE_URL must be set to this site's public address, e.g. https://{example}: it is printed on "
            "certificates, in their QR codes and in signed credentials, which cannot change once issued. "
            f"It is {url or 'missing'} while ALLOWED_HOSTS serves {', '.join(public_hosts)} with DEBUG off."
        )
    return url or f"http://127.0.0.1:{PORT}"


SITE_URL = _site_url()

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    "accounts",
    "course",
    "quizzes",
    "certificates",
    "labs",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "config.static_files.StaticAndMediaMiddleware",  # WhiteNoise: static files and media, with byte ranges
    # Compresses pages (WhiteNoise, above, sends static files precompressed and media as they are):
    # Django's, which pads each answer against BREACH; cached public pages come precompressed.
    "django.middleware.gzip.GZipMiddleware",
    "course.page_cache.PublicPageCacheMiddleware",  # serves cached public pages before the rest runs
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "config.middleware.ContentSecurityPolicyMiddleware",
    "django_ratelimit.middleware.RatelimitMiddleware",  # answers blocked requests with RATELIMIT_VIEW (429)
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

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
                "django.template.context_processors.i18n",
                "config.context_processors.site",
            ],
        },
    },
]

# Database: DATABASE_URL (PostgreSQL in production), else SQLite in STATE_DIR tuned so the web
# process and a worker can write at once (WAL, busy timeout, immediate transactions).
_SQLITE_OPTIONS = {
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=20000;",
    "transaction_mode": "IMMEDIATE",
    "timeout": 20,
}
_database_url = env_str("DATABASE_URL", f"sqlite:///{STATE_DIR / 'db.sqlite3'}")
try:
    # Connections are kept between requests: opening one (and, for SQLite, running its PRAGMAs) cost
    # about 1 ms, more than a whole cached page. Health checks drop one the server closed.
    DATABASES = {
        "default": dj_database_url.parse(
            _database_url, conn_max_age=env_int("DB_CONN_MAX_AGE", 600), conn_health_checks=True
        )
    }
except Exception as exc:  # dj_database_url raises several types; all mean the same to an operator
    raise ImproperlyConfigured(f"DATABASE_URL is not a valid database URL: {exc}") from None
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["OPTIONS"] = _SQLITE_OPTIONS
    # A file (not memory) so that a Celery worker process started by the tests sees the same data
    # (tests hand it the path); one per test process, so two suites on one checkout never share it.
    DATABASES["default"]["TEST"] = {"NAME": str(STATE_DIR / f"test-db-{os.getpid()}.sqlite3")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env_str("REDIS_URL", "redis://127.0.0.1:6380/0")  # the run command starts this one
if not REDIS_URL.startswith(("redis://", "rediss://", "unix://")):
    raise ImproperlyConfigured(f"REDIS_URL must start with redis://, rediss:// or unix://, got {REDIS_URL!r}")


def _cache_url(broker_url: str) -> str:
    """The next Redis database after the broker's, so that clearing the cache never drops the queue."""
    parts = urlsplit(broker_url)
    if parts.scheme == "unix":
        query = dict(parse_qsl(parts.query))
        query["db"] = str(int(query.get("db", "0")) + 1)
        # Written out: urlunsplit drops the "//" of a URL without a host, which redis-py refuses.
        return f"unix://{parts.netloc}{parts.path}?{urlencode(query)}"
    db = int(parts.path.strip("/") or 0)
    return urlunsplit(parts._replace(path=f"/{db + 1}"))


CACHES = {
    "default": {
        # django-redis keeps one Redis client per process, where Django's RedisCache builds a new one
        # for every call: a read measured 211 us of CPU with Django's backend, 100 us with this one.
        # Its errors are redis's own, as with Django's backend (no IGNORE_EXCEPTIONS): callers catch RedisError.
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": env_str("CACHE_URL") or _cache_url(REDIS_URL),
        "KEY_PREFIX": env_str("CACHE_KEY_PREFIX", "gacourse"),
        "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 2, "SOCKET_TIMEOUT": 2},
    }
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "accounts:dashboard"
LOGOUT_REDIRECT_URL = "course:home"

LANGUAGE_CODE = "en"
LANGUAGES = [("en", _("English")), ("hi", _("Hindi")), ("fr", _("French"))]
LANGUAGE_NAMES_NATIVE = {"en": "English", "hi": "हिन्दी", "fr": "Français"}
LOCALE_PATHS = [BASE_DIR / "locale"]
FORMAT_MODULE_PATH = ["config.formats"]  # French digit groups (config/formats/fr/formats.py)
USE_I18N = True
TIME_ZONE = "UTC"
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(BASE_DIR / "var" / "staticfiles")))
STATICFILES_DIRS = [BASE_DIR / "static"]
MEDIA_URL = "/media/"
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(STATE_DIR / "media")))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
WHITENOISE_MANIFEST_STRICT = False


def _accept_byte_ranges(headers, path: str, url: str) -> None:
    """Every static and media file says it can be fetched in parts (WhiteNoise answers ranges but
    does not say so; config/static_files.py)."""
    headers["Accept-Ranges"] = "bytes"


WHITENOISE_ADD_HEADERS_FUNCTION = _accept_byte_ranges

# Email: console/file by default (mail lands in STATE_DIR/mail), SMTP when EMAIL_HOST is set.
EMAIL_HOST = env_str("EMAIL_HOST")
if EMAIL_HOST:
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_PORT = env_int("EMAIL_PORT", 587)
    EMAIL_HOST_USER = env_str("EMAIL_HOST_USER")
    EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD")
    EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
else:
    EMAIL_BACKEND = env_str("EMAIL_BACKEND", "django.core.mail.backends.filebased.EmailBackend")
    EMAIL_FILE_PATH = STATE_DIR / "mail"
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Gradient Accumulation Course <course@localhost>")

# Security. Behind HTTPS (HTTPS=true) cookies are secure and HSTS is sent.
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_SECURE = HTTPS
# Django's database sessions (the default), not cached_db: a Redis flush or outage loses none, and
# cached_db's reads raise while Redis is down.
SESSION_ENGINE = "django.contrib.sessions.backends.db"
CSRF_COOKIE_SECURE = HTTPS
SECURE_SSL_REDIRECT = HTTPS and env_bool("SECURE_SSL_REDIRECT", True)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000) if HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = HTTPS
SECURE_HSTS_PRELOAD = HTTPS and env_bool("SECURE_HSTS_PRELOAD", True)
BEHIND_PROXY = env_bool("BEHIND_PROXY", False)
if BEHIND_PROXY:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# Without HTTPS (one machine on localhost) the HTTPS-only checks cannot apply.
SILENCED_SYSTEM_CHECKS = [] if HTTPS else ["security.W004", "security.W008", "security.W012", "security.W016"]
if HTTPS and not SECURE_HSTS_PRELOAD:
    SILENCED_SYSTEM_CHECKS.append("security.W021")  # the operator chose not to join the preload list

# Rate limits, applied by config/ratelimit.py: one counter per name (and per address or learner),
# kept in the cache. Each is "count/period" (s, m, h, d; 100/5m) and can be set in the environment
# as <NAME>_RATE, e.g. QUIZ_ANSWER_RATE=60/m.
if "LOGIN_USERNAME_RATE" in os.environ:  # renamed when the lock became per user name and address
    raise ImproperlyConfigured(
        "LOGIN_USERNAME_RATE is no longer read: set LOGIN_USERNAME_ADDRESS_RATE, which counts log-in attempts "
        "per user name from one address (a limit per name alone let anyone lock a learner out)"
    )
RATE_LIMITS = {
    "signup": env_rate("SIGNUP_RATE", "10/h"),  # accounts created per address
    "login": env_rate("LOGIN_RATE", "20/m"),  # log-in attempts per address (learners' and staff's forms)
    # log-in attempts per user name from one address (never per name alone: that locks its owner out)
    "login_username_address": env_rate("LOGIN_USERNAME_ADDRESS_RATE", "10/15m"),
    "password_reset": env_rate("PASSWORD_RESET_RATE", "5/h"),  # reset e-mails asked for per address
    "api_token_create": env_rate("API_TOKEN_CREATE_RATE", "20/h"),  # API tokens created per learner
    "guide_search": env_rate("GUIDE_SEARCH_RATE", "60/m"),  # searches per learner (or address)
    "newsletter_subscribe": env_rate("NEWSLETTER_SUBSCRIBE_RATE", "10/h"),  # subscriptions per address
    "quiz_start": env_rate("QUIZ_START_RATE", "30/h"),  # quiz attempts started per learner (or address)
    "quiz_answer": env_rate("QUIZ_ANSWER_RATE", "30/m"),  # answers per learner (or address)
    "certificate_claim": env_rate("CERTIFICATE_CLAIM_RATE", "10/h"),  # certificate claims per learner
    "certificate_lookup": env_rate("CERTIFICATE_LOOKUP_RATE", "60/m"),  # look-ups (page and API) per address
    "certificate_pdf": env_rate("CERTIFICATE_PDF_RATE", "30/m"),  # certificate PDFs per address
    "certificate_image": env_rate("CERTIFICATE_IMAGE_RATE", "60/m"),  # link-preview pictures per address
    "lab_submit": env_rate("LAB_SUBMIT_RATE", "30/h"),  # lab submissions (a preset sweep is one) per learner
}
# A workshop's learners reach the site through one address (a venue or campus behind NAT). Limits
# counted per address allow CLASSROOM_SIZE times their rate to an address in CLASSROOM_NETWORKS;
# limits per learner, and log-in attempts per user name and address, stay as they are.
CLASSROOM_NETWORKS = env_networks("CLASSROOM_NETWORKS")
CLASSROOM_SIZE = env_int("CLASSROOM_SIZE", 100)
if CLASSROOM_SIZE < 1:
    raise ImproperlyConfigured(f"CLASSROOM_SIZE must be at least 1, got {CLASSROOM_SIZE}")
RATELIMIT_ENABLE = env_bool("RATELIMIT_ENABLE", True)
# When the cache cannot be reached, requests go through (and a warning is logged): a Redis outage
# must not lock learners out, and the quotas that bound real cost (active lab runs, the daily
# training budget, exam cool-down and daily limit) are counted in the database.
RATELIMIT_FAIL_OPEN = True
RATELIMIT_USE_CACHE = "default"
RATELIMIT_VIEW = "config.views.rate_limited"  # the 429 page (or JSON error under /api/)
RATELIMIT_IP_META_KEY = "config.ratelimit.client_ip"  # the learner's address, also behind the proxy

# Celery: workers consume the `gpu` queue. The lab run row, not Celery, is the source of truth.
CELERY_BROKER_URL = REDIS_URL
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_DEFAULT_QUEUE = "gpu"
CELERY_TASK_ROUTES = {"labs.tasks.*": {"queue": "gpu"}}
LAB_SOFT_TIME_LIMIT = env_int("LAB_SOFT_TIME_LIMIT", 600)
LAB_HARD_TIME_LIMIT = env_int("LAB_HARD_TIME_LIMIT", 660)
# Runs sent to the `cuda` queue (labs.workers) may be longer: a GPU's limits allow more steps and samples.
LAB_CUDA_SOFT_TIME_LIMIT = env_int("LAB_CUDA_SOFT_TIME_LIMIT", 1800)
LAB_CUDA_HARD_TIME_LIMIT = env_int("LAB_CUDA_HARD_TIME_LIMIT", LAB_CUDA_SOFT_TIME_LIMIT + 60)
CELERY_TASK_SOFT_TIME_LIMIT = LAB_SOFT_TIME_LIMIT
CELERY_TASK_TIME_LIMIT = LAB_HARD_TIME_LIMIT
_LONGEST_RUN = max(LAB_HARD_TIME_LIMIT, LAB_CUDA_HARD_TIME_LIMIT)
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": _LONGEST_RUN + 300}
# A pool child is replaced after this many tasks, to bound a long-lived PyTorch process's memory. The beat's
# dispatcher and sweeper count too (10 a minute), and the new child loads PyTorch before it takes a run:
# 1000 replaces it every hour and a half or later, not every five minutes (docs/SCALING.md measured the pauses).
CELERY_WORKER_MAX_TASKS_PER_CHILD = env_int("CELERY_WORKER_MAX_TASKS_PER_CHILD", 1000)
# A pool child loads torch (and on a GPU initialises CUDA) before it says it is up (labs.workers.pool_child_prepare):
# Celery's 4 s default would kill it on a busy machine.
CELERY_WORKER_PROC_ALIVE_TIMEOUT = env_float("CELERY_WORKER_PROC_ALIVE_TIMEOUT", 120)

# Labs: quotas per learner, and the timings that keep runs from being lost or stuck.
LAB_MAX_ACTIVE_RUNS = env_int("LAB_MAX_ACTIVE_RUNS", 12)  # queued or running runs per learner
LAB_DAILY_SAMPLE_BUDGET = env_int("LAB_DAILY_SAMPLE_BUDGET", 1_000_000)  # steps × effective batch per day
LAB_TORCH_THREADS = env_int("LAB_TORCH_THREADS", 0)  # CPU threads per training run; 0: half the cores
LAB_MAX_PROCESSES = env_int("LAB_MAX_PROCESSES", 2)  # data-parallel processes (G) one run may use; see README
# Empty: GPU settings (sizes above tiny, tf32) are accepted while a CUDA worker is connected (labs.workers);
# "cpu" or "cuda" fixes that whatever is connected.
LAB_DEVICE_CLASS = env_str("LAB_DEVICE_CLASS", "")
LAB_PRESET_MAX_STEPS = env_int("LAB_PRESET_MAX_STEPS", 0)  # 0: presets as designed; else a cap (small machines)
LAB_PROGRESS_INTERVAL = env_float("LAB_PROGRESS_INTERVAL", 0.4)  # seconds between progress writes
LAB_HEARTBEAT_INTERVAL = env_float("LAB_HEARTBEAT_INTERVAL", 5)  # a running run says it is alive this often
LAB_STALE_AFTER = env_float("LAB_STALE_AFTER", 60)  # ...and is presumed dead after this long without
LAB_MAX_ATTEMPTS = env_int("LAB_MAX_ATTEMPTS", 3)  # claims before a run whose worker keeps dying fails
LAB_SWEEP_INTERVAL = env_float("LAB_SWEEP_INTERVAL", 15)  # how often the sweeper looks for dead runs
LAB_DISPATCH_INTERVAL = env_float("LAB_DISPATCH_INTERVAL", 10)  # ...and for runs stored while Redis was down
LAB_RESEND_AFTER = env_float("LAB_RESEND_AFTER", _LONGEST_RUN + 300)  # re-send a message Redis may have lost
LAB_WORKER_TTL = env_float("LAB_WORKER_TTL", 15)  # a worker shows as connected this long after its last heartbeat
LAB_WORKER_DEVICE = env_str("LAB_WORKER_DEVICE", "")  # what a worker reports it trains on; empty: detect (nvidia-smi)
# The memory a worker states (MiB) and takes sizes by (labs.workers); 0: detect. A share of a GPU that several use.
LAB_WORKER_MEMORY_MIB = env_int("LAB_WORKER_MEMORY_MIB", 0)
# The run command submits the reference sweeps that are missing or outdated after start-up (labs/reference.py).
LAB_REFERENCE_SWEEPS = env_bool("LAB_REFERENCE_SWEEPS", True)
# Both share the `gpu` queue with training; `expires` drops those that waited behind a long run.
CELERY_BEAT_SCHEDULE = {
    "labs-sweep-stale-runs": {
        "task": "labs.tasks.sweep_stale_runs",
        "schedule": LAB_SWEEP_INTERVAL,
        "options": {"expires": LAB_SWEEP_INTERVAL},
    },
    "labs-dispatch-pending-runs": {
        "task": "labs.tasks.dispatch_pending_runs",
        "schedule": LAB_DISPATCH_INTERVAL,
        "options": {"expires": LAB_DISPATCH_INTERVAL},
    },
}

# Course settings.
CONTENT_DIR = Path(env_str("CONTENT_DIR", str(BASE_DIR / "content")))
NARRATION_DIR = MEDIA_ROOT / "narration"
# The run command records the missing narration after start-up, in the background (its `narration` program).
NARRATION_ON_START = env_bool("NARRATION_ON_START", True)
DONATE_URL = env_str("DONATE_URL", "")  # where the "Support us" page sends donors


# A guide page's links outside the site, each shown only when set: its notebook opened in Colab from
# a public GitHub repository (where `manage.py export_notebooks` output is committed), and its
# discussion in a forum.
def _notebook_repository() -> tuple[str, str, str]:
    """The repository's address, branch and folder, as Colab's GitHub form needs them (course/outside_links.py)."""
    url = env_str("NOTEBOOK_REPOSITORY_URL").strip().rstrip("/").removesuffix(".git")
    if url and not re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+", url):
        raise ImproperlyConfigured(
            "NOTEBOOK_REPOSITORY_URL must be a public GitHub repository such as https://github.com/org/repo "
            f"(Colab opens notebooks from GitHub), got {url!r}"
        )
    branch = env_str("NOTEBOOK_REPOSITORY_BRANCH", "main").strip()
    if not re.fullmatch(r"[\w./-]+", branch) or ".." in branch:
        raise ImproperlyConfigured(f"NOTEBOOK_REPOSITORY_BRANCH must be a branch name such as main, got {branch!r}")
    folder = env_str("NOTEBOOK_REPOSITORY_PATH", "notebooks").strip().strip("/")
    if not re.fullmatch(r"[\w./-]*", folder) or ".." in folder.split("/"):
        raise ImproperlyConfigured(
            f"NOTEBOOK_REPOSITORY_PATH must be a folder inside the repository such as notebooks, got {folder!r}"
        )
    return url, branch, folder


NOTEBOOK_REPOSITORY_URL, NOTEBOOK_REPOSITORY_BRANCH, NOTEBOOK_REPOSITORY_PATH = _notebook_repository()


def _discussion_url_pattern() -> str:
    """A forum address with {slug} (the guide's) and optionally {language} in it; empty: no link."""
    pattern = env_str("DISCUSSION_URL_PATTERN").strip()
    if not pattern:
        return ""
    try:
        example = pattern.format(slug="the-accumulation-loop", language="en")
    except (KeyError, IndexError, ValueError):
        raise ImproperlyConfigured(
            f"DISCUSSION_URL_PATTERN may hold only the placeholders {{slug}} and {{language}}, got {pattern!r}"
        ) from None
    parts = urlsplit(example)
    if parts.scheme != "https" or not parts.hostname or "{slug}" not in pattern:
        raise ImproperlyConfigured(
            "DISCUSSION_URL_PATTERN must be an https address with {slug} in it, such as "
            f"https://forum.example.org/t/{{slug}}, got {pattern!r}"
        )
    return pattern


DISCUSSION_URL_PATTERN = _discussion_url_pattern()
QUIZ_PASS_MARK = env_float("QUIZ_PASS_MARK", 0.8)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"django.request": {"level": "ERROR"}},
}
CSRF_FAILURE_VIEW = "config.views.csrf_failure"

# Quizzes
QUIZ_EXAM_QUESTIONS = env_int("QUIZ_EXAM_QUESTIONS", 15)  # questions drawn from the bank per exam attempt
QUIZ_EXAM_COOLDOWN_MINUTES = env_int("QUIZ_EXAM_COOLDOWN_MINUTES", 30)  # wait after finishing an exam attempt
QUIZ_EXAM_DAILY_LIMIT = env_int("QUIZ_EXAM_DAILY_LIMIT", 3)  # exam attempts started per rolling 24 hours
# Minutes an exam attempt may take (0: no limit); answers after it are refused, the attempt is graded.
QUIZ_EXAM_TIME_LIMIT_MINUTES = env_int("QUIZ_EXAM_TIME_LIMIT_MINUTES", 45)
if QUIZ_EXAM_TIME_LIMIT_MINUTES < 0:
    raise ImproperlyConfigured("QUIZ_EXAM_TIME_LIMIT_MINUTES must be 0 (no limit) or a number of minutes")
CERT_ISSUER_NAME = env_str("CERT_ISSUER_NAME", "Gradient Accumulation Course")  # issuer in signed credentials
# Signing keys live outside the repository; `manage.py ensure_signing_key` creates the first one.
CERT_KEY_DIR = Path(env_str("CERT_KEY_DIR", str(STATE_DIR / "keys")))


def _signing_algorithm() -> str:
    """RS256 (RSA), the algorithm every Open Badges 3.0 verifier must support, or EdDSA (Ed25519)."""
    algorithm = env_str("CERT_SIGNING_ALGORITHM", "RS256").strip()
    if algorithm not in ("RS256", "EdDSA"):
        raise ImproperlyConfigured(f"CERT_SIGNING_ALGORITHM must be RS256 or EdDSA, got {algorithm!r}")
    return algorithm


CERT_SIGNING_ALGORITHM = _signing_algorithm()
# The learner's name in new credentials as a salted SHA-256 hash (OB 3.0 IdentityHash) instead of plain text.
CERT_IDENTIFIER_HASHED = env_bool("CERT_IDENTIFIER_HASHED", False)
