import ShopkeeperDatabase

/// The content service's schema changes, oldest first. Forward only: never edit a released one, add a new one.
enum ContentMigrations {
    static let runner = MigrationRunner(schema: "content", migrations: all)

    static let all: [Migration] = [
        Migration(
            "0001_packs_versions_downloads",
            sql: """
                -- An upload of one version of a product's pack: its files are staged on disk under the upload id and
                -- listed here once each is complete.
                CREATE TABLE content.uploads (
                    upload_id text PRIMARY KEY,
                    app_id text NOT NULL,
                    product_id text NOT NULL,
                    version text NOT NULL,
                    min_app_version text,
                    state text NOT NULL DEFAULT 'open'
                        CHECK (state IN ('open', 'publishing', 'published', 'aborted')),
                    created_at timestamptz NOT NULL DEFAULT now(),
                    updated_at timestamptz NOT NULL DEFAULT now()
                );
                CREATE INDEX uploads_by_product ON content.uploads (app_id, product_id);
                CREATE TABLE content.upload_files (
                    upload_id text NOT NULL REFERENCES content.uploads (upload_id),
                    path text NOT NULL,
                    size bigint NOT NULL CHECK (size >= 0),
                    sha256 text NOT NULL,
                    PRIMARY KEY (upload_id, path)
                );

                -- Published versions are immutable. The primary key decides which of two uploads of one version is
                -- published: the row is claimed ('publishing') before the files are renamed into place, and becomes
                -- 'published' (visible) only after.
                CREATE TABLE content.versions (
                    app_id text NOT NULL,
                    product_id text NOT NULL,
                    version text NOT NULL,
                    sequence bigserial UNIQUE,
                    upload_id text NOT NULL REFERENCES content.uploads (upload_id),
                    min_app_version text,
                    state text NOT NULL CHECK (state IN ('publishing', 'published')),
                    total_size bigint NOT NULL,
                    file_count integer NOT NULL,
                    published_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (app_id, product_id, version)
                );
                CREATE TABLE content.files (
                    app_id text NOT NULL,
                    product_id text NOT NULL,
                    version text NOT NULL,
                    path text NOT NULL,
                    size bigint NOT NULL,
                    sha256 text NOT NULL,
                    PRIMARY KEY (app_id, product_id, version, path),
                    FOREIGN KEY (app_id, product_id, version) REFERENCES content.versions (app_id, product_id, version)
                );

                -- Every download (each request that sent bytes): who, what, which bytes, whether it ran to its end.
                -- A reset of a device marks its rows, so its files count as not downloaded again.
                CREATE TABLE content.downloads (
                    download_id bigserial PRIMARY KEY,
                    app_id text NOT NULL,
                    app_user_id text NOT NULL,
                    device_id text NOT NULL,
                    product_id text NOT NULL,
                    version text NOT NULL,
                    path text NOT NULL,
                    range_start bigint NOT NULL,
                    range_end bigint NOT NULL,
                    file_size bigint NOT NULL,
                    bytes_sent bigint NOT NULL,
                    completed boolean NOT NULL,
                    request_id text,
                    started_at timestamptz NOT NULL,
                    finished_at timestamptz NOT NULL DEFAULT now(),
                    reset_at timestamptz
                );
                CREATE INDEX downloads_by_device ON content.downloads (app_id, app_user_id, device_id, product_id)
                    WHERE reset_at IS NULL;
                CREATE INDEX downloads_by_product ON content.downloads (app_id, product_id, download_id);
                """
        ),
        Migration(
            "0002_downloads_logged_when_they_start",
            sql: """
                -- A download is logged when it starts and finished when it ends (by the content service, or by the
                -- gateway's report when the gateway sent the file): a crash between the two leaves an unfinished
                -- entry, never none.
                ALTER TABLE content.downloads ALTER COLUMN finished_at DROP DEFAULT;
                ALTER TABLE content.downloads ALTER COLUMN finished_at DROP NOT NULL;
                """
        ),
        Migration(
            "0003_downloads_by_user",
            sql: """
                -- A customer's devices for support (GET /v1/customers/{app_user_id}/content/devices), reset ones too.
                CREATE INDEX downloads_by_user ON content.downloads (app_id, app_user_id);
                """
        ),
        Migration(
            "0004_reports",
            sql: """
                -- The content report (GET /v1/admin/reports/content) is SQL over the download log. A file download is
                -- a request that sent a file's last byte (`completed AND range_end = file_size - 1`, as manifests count
                -- it); a re-download, one of a file its customer had downloaded before. `changed_tx`: the transaction
                -- that last changed the row (NULL: before this release); the report's daily summary is refreshed from
                -- the downloads changed since it was last built (DailyRollup).
                ALTER TABLE content.downloads ADD COLUMN changed_tx xid8;
                ALTER TABLE content.downloads ALTER COLUMN changed_tx SET DEFAULT pg_current_xact_id();
                CREATE FUNCTION content.touch_changed_tx() RETURNS trigger
                LANGUAGE plpgsql AS $$
                BEGIN
                    IF NEW IS DISTINCT FROM OLD THEN
                        NEW.changed_tx := pg_current_xact_id();
                    END IF;
                    RETURN NEW;
                END;
                $$;
                CREATE TRIGGER downloads_changed_tx BEFORE UPDATE ON content.downloads
                    FOR EACH ROW EXECUTE FUNCTION content.touch_changed_tx();

                -- Reports count in UTC days.
                CREATE FUNCTION content.utc_day(t timestamptz) RETURNS date
                LANGUAGE sql IMMUTABLE AS $$ SELECT (t AT TIME ZONE 'UTC')::date $$;
                CREATE FUNCTION content.utc_start(d date) RETURNS timestamptz
                LANGUAGE sql IMMUTABLE AS $$ SELECT d::timestamp AT TIME ZONE 'UTC' $$;

                -- A day's downloads, and its file downloads; what changed since a summary; a customer's earlier
                -- downloads of a file.
                CREATE INDEX downloads_by_app_start ON content.downloads (app_id, started_at);
                CREATE INDEX downloads_files_by_day ON content.downloads (app_id, started_at)
                    WHERE completed AND range_end = file_size - 1;
                CREATE INDEX downloads_changed ON content.downloads (app_id, changed_tx);
                CREATE INDEX downloads_files_by_customer
                    ON content.downloads (app_id, app_user_id, product_id, version, path, download_id)
                    WHERE completed AND range_end = file_size - 1;

                -- Each app's daily summaries: closed UTC days only (today is worked out from the log at each read).
                CREATE TABLE content.report_rollups (
                    app_id text NOT NULL,
                    rollup text NOT NULL,
                    tx xid8 NOT NULL,
                    built_through date NOT NULL,
                    built_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (app_id, rollup)
                );
                CREATE TABLE content.report_download_days (
                    app_id text NOT NULL,
                    day date NOT NULL,
                    product_id text NOT NULL,
                    version text NOT NULL,
                    downloads bigint NOT NULL,
                    redownloads bigint NOT NULL,
                    bytes_sent bigint NOT NULL
                );
                CREATE INDEX report_download_days_by_day ON content.report_download_days (app_id, day);
                -- The devices with a file download, once per day and version: distinct devices over any range and
                -- grouping are counted from these (a device downloads a version's files together), not from the log.
                CREATE TABLE content.report_download_devices (
                    app_id text NOT NULL,
                    day date NOT NULL,
                    product_id text NOT NULL,
                    version text NOT NULL,
                    app_user_id text NOT NULL,
                    device_id text NOT NULL
                );
                CREATE INDEX report_download_devices_by_day ON content.report_download_devices (app_id, day);
                """
        ),
    ]
}
