"""Settings, read once from ``REELSCOPE_*`` environment variables (ARCHITECTURE §1)."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict


class Settings(BaseSettings):
    """Everything an operator can configure, grouped by the part that reads it."""

    model_config = SettingsConfigDict(env_prefix="REELSCOPE_", extra="ignore")

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """The values given, then the environment; no .env file and no secrets directory, which this
        class configures neither of: pydantic-settings still looked each field up in both, as many type
        inspections as reading the environment itself (half of every ``Settings()``)."""
        return init_settings, env_settings

    # server
    host: str = "127.0.0.1"
    port: int = 8000
    data_dir: Path = Path(".reelscope")
    log_level: str = "info"
    log_json: bool = False
    # proxies whose X-Forwarded-For/-Proto are believed (addresses or networks, comma-separated; "*" for
    # any): none by default, so a client cannot choose its address for the per-IP limiter (cli/http_server)
    forwarded_allow_ips: str = ""
    # the edge (kit/edge.py, cli/http_server.py): the largest request body and head, and how long a body
    # may take to arrive
    max_body_bytes: int = Field(default=4 * 1024 * 1024, ge=1)
    max_header_bytes: int = Field(default=32 * 1024, ge=1024)  # request line and headers
    body_timeout_seconds: float = Field(default=30.0, gt=0)
    # processes that run the endpoints of reads not declared small, so that none holds the event loop
    # (contract/read_workers.py, ADR 0040): unset, one fewer than the CPUs; 0, every endpoint on the loop
    read_workers: int | None = Field(default=None, ge=0)
    # a team's requests in flight at once in this process (or across processes with Redis), beyond which
    # a request is 429 rate_limit_exceeded (rate_limit/in_flight.py); unset, no cap
    team_max_in_flight: int | None = Field(default=None, ge=1)
    # a callback holding the event loop this long is logged with its route (kit/loop_watch.py); 0, off
    loop_held_warning_ms: int = Field(default=100, ge=0)
    # the answers each process keeps between requests, in MB of rendered bodies (kit/caches.py)
    read_cache_mb: int = Field(default=64, ge=1)
    # freed memory given back to the system (kit/heap.py, ADR 0054; glibc only): at most this many malloc
    # arenas (0: glibc's default of 8 per CPU; the MALLOC_ARENA_MAX variable wins), and malloc_trim every
    # this many seconds (0: never)
    malloc_arena_max: int = Field(default=2, ge=0)
    malloc_trim_seconds: float = Field(default=30, ge=0)
    # every this many seconds, log where this process's memory grew since the first report (Python's
    # tracemalloc, kit/memory_report.py; it slows the process by about a third); 0, off
    memory_report_seconds: int = Field(default=0, ge=0)
    # Prometheus metrics (metrics/, ADR 0050): GET /metrics on the API (false: neither the route nor the
    # counting), the bearer token it asks for (unset: none), the directory every process of one host
    # records its values in (prometheus-client's multiprocess mode; unset: each process its own), and the
    # port a `reelscope worker` serves its own /metrics on (unset: none)
    metrics: bool = True
    metrics_token: SecretStr | None = None
    metrics_dir: Path | None = None
    worker_metrics_port: int | None = Field(default=None, ge=1, le=65535)

    # db
    database_url: str | None = None
    sql_echo: bool = False

    # redis (unset = embedded: in-memory rate limits, SQLite job queue). The API's pool: a request waits
    # up to redis_timeout_seconds for one of redis_max_connections (also the connect and command timeout)
    redis_url: str | None = None
    redis_max_connections: int = Field(default=100, ge=1)
    redis_timeout_seconds: float = Field(default=5.0, gt=0)

    # collectors (issue 26, ADR 0044): the sources in the order they are asked (sandbox, youtube, news,
    # ytdlp, tiktok_research, instagram, meta_ads); each real one stays unavailable until configured.
    # Every base URL is a setting, for egress proxies and for tests against a recorded server. Keys and
    # tokens are SecretStr: never shown, never logged
    connectors: str = "sandbox"
    # the first start of an empty data dir collects this many newest days of the world feeds before it
    # answers; the rest of the catalog's 14 days come in the first start's history job (issue 17 item 4)
    first_start_days: int = Field(default=3, ge=1, le=14)
    sandbox_seed: int = 20240601
    sandbox_failures: str = ""
    collector_timeout_seconds: float = Field(default=20.0, gt=0)
    youtube_api_key: SecretStr | None = None
    youtube_base_url: str = "https://www.googleapis.com/youtube/v3"
    # connectors reference §1.4: search.list has its own bucket of 100 calls a day since 2026-06-01, every
    # other method shares 10,000 units; background collection may spend this share of each
    youtube_search_daily_limit: int = Field(default=100, ge=0)
    youtube_units_daily_limit: int = Field(default=10_000, ge=0)
    youtube_background_share: float = Field(default=0.6, ge=0, le=1)
    news_rss_base_url: str = "https://news.google.com/rss"
    news_language: str = "en-US"  # Google News hl; gl and ceid follow from it and news_country
    news_country: str = "US"
    gdelt_base_url: str = "https://api.gdeltproject.org/api/v2/doc/doc"
    # yt-dlp runs in a child process killed after this long (connectors reference §5.1)
    ytdlp_timeout_seconds: float = Field(default=60.0, gt=0)
    # TikTok Research API (issue 27, connectors reference §2): an approved research project's client key
    # and secret; 1,000 requests a day per project, reset at 00:00 UTC, of which collection may spend
    # the background share
    tiktok_client_key: SecretStr | None = None
    tiktok_client_secret: SecretStr | None = None
    tiktok_base_url: str = "https://open.tiktokapis.com"
    tiktok_daily_request_limit: int = Field(default=1_000, ge=0)
    tiktok_background_share: float = Field(default=0.6, ge=0, le=1)
    # Instagram Graph API (§3): a Facebook user token with instagram_basic, pages_read_engagement and
    # instagram_manage_insights (+ Instagram Public Content Access for hashtags), and the id of the
    # professional account it acts for
    instagram_access_token: SecretStr | None = None
    instagram_user_id: str | None = None
    instagram_base_url: str = "https://graph.facebook.com/v25.0"
    # Meta Ad Library (§4): the token of a developer who completed identity confirmation; the countries
    # whose ads are searched (ALL, or ISO codes such as GB,DE,FR: commercial ads are listed only where
    # they reached the EU or the UK)
    meta_access_token: SecretStr | None = None
    meta_base_url: str = "https://graph.facebook.com/v25.0"
    meta_ads_countries: str = "ALL"

    # webhooks
    webhook_allowed_networks: str = ""
    webhook_ca_bundle: Path | None = None
    webhook_retry_schedule: str = "0,30,120,600,3600,21600,86400"

    # dashboard pages (ADR 0023): the secret that signs their links (unset: a random key kept in data_dir),
    # how long a link lasts, and the address links start with (unset: http://host:port)
    dashboard_secret: str | None = None
    dashboard_link_hours: int = Field(default=168, ge=1)
    public_url: str | None = None

    # auth: the per-IP limiter for requests with no usable key (§5.5)
    ip_burst: int = Field(default=20, ge=1)
    ip_refill_per_second: float = Field(default=1.0, gt=0)

    # billing
    demo_team_credits: int = 1000

    # the optional LLM that rewords the agents' written fields (ARCHITECTURE §8, ADR 0031; llm/client.py):
    # an OpenAI-compatible API (base URL up to ``/v1``), off unless both the base URL and the model are
    # set. The key is sent as a Bearer token and never shown (SecretStr). The prices turn the provider's
    # reported token usage into the analysis' ``cost_usd`` (0 when a price or the usage is unknown)
    llm_base_url: str | None = None
    llm_model: str | None = None
    llm_api_key: SecretStr | None = None
    llm_timeout_seconds: float = Field(default=30.0, gt=0)
    llm_prompt_price_per_1k_tokens: float = Field(default=0.0, ge=0)
    llm_completion_price_per_1k_tokens: float = Field(default=0.0, ge=0)

    # jobs (worker/): worker threads of each lane (ADR 0042: the background lane's upkeep, the user lane's
    # work a team waits for), the worker's lease on a running job, how often the dispatcher looks for due
    # schedules and lost work, when a pending job's queue message counts as lost, and extra task modules
    # to import (comma-separated; tests register test-only tasks this way)
    job_workers: int = Field(default=2, ge=1)
    job_user_workers: int = Field(default=2, ge=1)
    # the webhook pump's lane (ADR 0053): one thread, so one pump at a time per worker process
    job_event_workers: int = Field(default=1, ge=1)
    job_lease_seconds: float = Field(default=300, gt=0)
    job_dispatch_interval_seconds: float = Field(default=10, gt=0)
    job_stale_after_seconds: float = Field(default=120, gt=0)
    extra_task_modules: str = ""

    # retention (retention/): the periodic purge removes webhook deliveries (with their attempts), outbox
    # events and finished jobs older than these many days; never an event not yet fanned out, a delivery
    # still pending or a job still to run (issue 31)
    retain_deliveries_days: int = Field(default=30, ge=1)
    retain_events_days: int = Field(default=90, ge=1)
    retain_jobs_days: int = Field(default=14, ge=1)
    # a tracked item's snapshots taken longer ago than this go, except its newest (the §8.3 snapshot list
    # shows at most 365; a daily cycle makes a year of them)
    retain_tracking_snapshots_days: int = Field(default=365, ge=1)
    # a deleted agent's rows (runs, links, analytics, changes, activity, events, its finished jobs and
    # schedule, then the agent itself) go this many days after its deletion; catalog rows never
    retain_deleted_agents_days: int = Field(default=30, ge=1)

    @field_validator(
        "youtube_base_url",
        "news_rss_base_url",
        "gdelt_base_url",
        "tiktok_base_url",
        "instagram_base_url",
        "meta_base_url",
    )
    @classmethod
    def _source_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return value.rstrip("/")

    @field_validator("llm_base_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        """An absolute http(s) URL, or unset (empty too): a typo fails at start, not as a fallback on every
        run."""
        if not value:
            return None
        if not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return value

    @cached_property
    def effective_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite+aiosqlite:///{(self.data_dir / 'reelscope.db').resolve()}"

    @property
    def is_sqlite(self) -> bool:
        return self.effective_database_url.startswith("sqlite")


def load_settings() -> Settings:
    return Settings()
