import Logging
import PostgresNIO

/// The PostgreSQL schema, as numbered, append-only migrations (docs/sync.md, "Schema").
///
/// The first client that connects applies what is missing. It does so in one transaction that first takes
/// `pg_advisory_xact_lock(lockKey)`, so two devices migrating at once run one after the other: the second finds the
/// work done. A shipped migration is never edited; a change is a new one at the end.
enum ServerSchema {
    /// The advisory lock every migrator takes (an arbitrary constant: "griptrk" in ASCII).
    static let lockKey: Int64 = 0x67_72_69_70_74_72_6B

    /// Each migration: its version, name, and statements (the extended protocol runs one statement per query).
    static let migrations: [(version: Int, name: String, statements: [String])] = [
        (1, "devices, recordings, efforts, sample chunks, tombstones, subscription mirror", [
            """
            CREATE TABLE devices (
                account text NOT NULL,
                device_name text NOT NULL,
                first_seen_at timestamptz NOT NULL DEFAULT now(),
                last_push_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (account, device_name)
            )
            """,
            """
            CREATE TABLE recordings (
                uuid uuid PRIMARY KEY,
                account text NOT NULL,
                device_name text NOT NULL,
                started_at timestamptz NOT NULL,
                ended_at timestamptz,
                device text NOT NULL,
                profile text NOT NULL,
                hand text,
                label text,
                state text NOT NULL,
                sample_count bigint NOT NULL,
                effort_count integer NOT NULL,
                max_kg double precision,
                average_kg double precision,
                updated_at timestamptz NOT NULL,
                FOREIGN KEY (account, device_name) REFERENCES devices (account, device_name)
            )
            """,
            "CREATE INDEX recordings_by_account ON recordings (account, started_at DESC)",
            """
            CREATE TABLE efforts (
                recording_uuid uuid NOT NULL REFERENCES recordings (uuid) ON DELETE CASCADE,
                effort_index integer NOT NULL,
                start_micros bigint NOT NULL,
                end_micros bigint NOT NULL,
                peak_kg double precision NOT NULL,
                mean_kg double precision NOT NULL,
                duration_micros bigint NOT NULL,
                time_to_peak_micros bigint NOT NULL,
                rfd_kg_per_s double precision,
                impulse_kg_s double precision NOT NULL,
                baseline_kg double precision NOT NULL,
                is_open_start boolean NOT NULL,
                is_open boolean NOT NULL,
                PRIMARY KEY (recording_uuid, effort_index)
            )
            """,
            """
            CREATE TABLE sample_chunks (
                recording_uuid uuid NOT NULL REFERENCES recordings (uuid) ON DELETE CASCADE,
                sequence integer NOT NULL,
                encoding smallint NOT NULL,
                first_micros bigint NOT NULL,
                sample_count integer NOT NULL,
                samples bytea NOT NULL,
                PRIMARY KEY (recording_uuid, sequence)
            )
            """,
            """
            CREATE TABLE tombstones (
                uuid uuid PRIMARY KEY,
                account text NOT NULL,
                device_name text NOT NULL,
                deleted_at timestamptz NOT NULL
            )
            """,
            """
            CREATE TABLE subscription_state (
                account text NOT NULL,
                device_name text NOT NULL,
                tier text NOT NULL,
                source text NOT NULL,
                reason text NOT NULL,
                expires_at timestamptz,
                changed_at timestamptz NOT NULL,
                PRIMARY KEY (account, device_name)
            )
            """,
            """
            CREATE TABLE subscription_events (
                event_id uuid PRIMARY KEY,
                account text NOT NULL,
                device_name text NOT NULL,
                event text NOT NULL,
                tier text NOT NULL,
                source text NOT NULL,
                reason text NOT NULL,
                expires_at timestamptz,
                at timestamptz NOT NULL
            )
            """,
            "CREATE INDEX subscription_events_by_account ON subscription_events (account, at)",
        ]),
    ]

    /// The newest version this griptrack knows.
    static var currentVersion: Int { migrations.last?.version ?? 0 }

    /// Brings the server's schema to ``currentVersion``, under the advisory lock.
    ///
    /// - Returns: The versions this call applied (empty when another client had already done it).
    /// - Throws: ``SyncError/serverSchemaNewer(serverVersion:knownVersion:)`` (inside a `PostgresTransactionError`)
    ///   or what postgres-nio threw, unmapped: the caller (``SyncClient/prepare(_:)``) tells a lock timeout apart.
    @discardableResult
    static func migrate(_ connection: PostgresConnection, logger: Logger) async throws -> [Int] {
        let applied = try await connection.withTransaction(logger: logger) { connection in
            // Taken first: CREATE TABLE IF NOT EXISTS alone is not safe against a concurrent creator.
            try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS griptrack_schema (
                    version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())
                """, logger: logger)
            var done = Set<Int>()
            for try await version in try await connection.query(
                "SELECT version FROM griptrack_schema", logger: logger
            ).checked(columns: 1).decode(Int.self) {
                done.insert(version)
            }
            if let newest = done.max(), newest > currentVersion {
                throw SyncError.serverSchemaNewer(serverVersion: newest, knownVersion: currentVersion)
            }
            var applied: [Int] = []
            for migration in migrations where !done.contains(migration.version) {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    "INSERT INTO griptrack_schema (version, name) VALUES (\(migration.version), \(migration.name))",
                    logger: logger)
                applied.append(migration.version)
            }
            return applied
        }
        if !applied.isEmpty { logger.info("sync schema migrated", metadata: ["versions": "\(applied)"]) }
        return applied
    }
}
