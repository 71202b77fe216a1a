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
        (2, "accounts, App Store notifications, operator grants", [
            // An account's UUID is the appAccountToken its app puts on purchases: the link from a notification to
            // the account's Pis (docs/account.md).
            """
            CREATE TABLE accounts (
                account text PRIMARY KEY,
                account_uuid uuid NOT NULL UNIQUE,
                role_name text UNIQUE,
                created_at timestamptz NOT NULL DEFAULT now()
            )
            """,
            // What griptrack-hub received, verified, as signed: a Pi verifies it again itself and trusts Apple's
            // signature, never these rows' decoded columns (which are for dashboards and the pull's order).
            """
            CREATE TABLE appstore_notifications (
                notification_uuid text PRIMARY KEY,
                account text REFERENCES accounts (account),
                app_account_token uuid,
                notification_type text NOT NULL,
                subtype text,
                original_transaction_id text,
                signed_at timestamptz,
                expires_at timestamptz,
                signed_payload text NOT NULL,
                signed_transaction text,
                signed_renewal_info text,
                received_at timestamptz NOT NULL DEFAULT now()
            )
            """,
            "CREATE INDEX appstore_notifications_by_account ON appstore_notifications (account, signed_at)",
            // Central grants and revocations, signed by the operator's Ed25519 key; a Pi verifies each with the key
            // in its configuration and ignores the other columns (docs/account.md, "Central grants").
            """
            CREATE TABLE account_grants (
                statement_id uuid PRIMARY KEY,
                account text NOT NULL,
                action text NOT NULL,
                note text NOT NULL,
                expires_at timestamptz,
                issued_at timestamptz NOT NULL,
                signed_statement text NOT NULL
            )
            """,
            "CREATE INDEX account_grants_by_account ON account_grants (account, issued_at)",
        ]),
        // Each account's own role sees and writes only its own rows (docs/account.md, "Each account sees only its
        // own rows"). Enabled, not forced: the tables' owner (the operator, or the one shared role of a setup from
        // before accounts had roles) is not bound by the policies. Roles without an accounts row see nothing. A
        // policy without WITH CHECK checks new rows with its USING expression, so a role can write only its own.
        (3, "row-level security per account", [
            "ALTER TABLE devices ENABLE ROW LEVEL SECURITY",
            "ALTER TABLE recordings ENABLE ROW LEVEL SECURITY",
            "ALTER TABLE tombstones ENABLE ROW LEVEL SECURITY",
            "ALTER TABLE subscription_state ENABLE ROW LEVEL SECURITY",
            "ALTER TABLE subscription_events ENABLE ROW LEVEL SECURITY",
            "ALTER TABLE appstore_notifications ENABLE ROW LEVEL SECURITY",
            "ALTER TABLE account_grants ENABLE ROW LEVEL SECURITY",
            "ALTER TABLE efforts ENABLE ROW LEVEL SECURITY",
            "ALTER TABLE sample_chunks ENABLE ROW LEVEL SECURITY",
            "ALTER TABLE accounts ENABLE ROW LEVEL SECURITY",
            "CREATE POLICY account_rows ON devices USING (account IN (SELECT account FROM accounts WHERE role_name = current_user))",
            "CREATE POLICY account_rows ON recordings USING (account IN (SELECT account FROM accounts WHERE role_name = current_user))",
            "CREATE POLICY account_rows ON tombstones USING (account IN (SELECT account FROM accounts WHERE role_name = current_user))",
            "CREATE POLICY account_rows ON subscription_state USING (account IN (SELECT account FROM accounts WHERE role_name = current_user))",
            "CREATE POLICY account_rows ON subscription_events USING (account IN (SELECT account FROM accounts WHERE role_name = current_user))",
            "CREATE POLICY account_rows ON appstore_notifications USING (account IN (SELECT account FROM accounts WHERE role_name = current_user))",
            "CREATE POLICY account_rows ON account_grants USING (account IN (SELECT account FROM accounts WHERE role_name = current_user))",
            "CREATE POLICY account_rows ON efforts USING (EXISTS (SELECT 1 FROM recordings WHERE recordings.uuid = recording_uuid))",
            "CREATE POLICY account_rows ON sample_chunks USING (EXISTS (SELECT 1 FROM recordings WHERE recordings.uuid = recording_uuid))",
            "CREATE POLICY account_rows ON accounts USING (role_name = current_user)",
        ]),
        // What `griptrack admin report` and a dashboard read. security_invoker: a view otherwise runs with its
        // owner's rights, past the row-level security an account's role is under.
        (4, "dashboard views", [
            """
            CREATE VIEW dashboard_accounts WITH (security_invoker = true) AS
            SELECT a.account, a.account_uuid, a.created_at,
                (SELECT count(*) FROM devices d WHERE d.account = a.account) AS devices,
                (SELECT count(*) FROM recordings r WHERE r.account = a.account) AS recordings,
                (SELECT coalesce(sum(r.sample_count), 0) FROM recordings r WHERE r.account = a.account)::bigint
                    AS samples,
                (SELECT max(d.last_push_at) FROM devices d WHERE d.account = a.account) AS last_push_at,
                (SELECT count(*) FROM subscription_state s WHERE s.account = a.account AND s.tier = 'pro')
                    AS pro_devices,
                (SELECT n.notification_type FROM appstore_notifications n WHERE n.account = a.account
                 ORDER BY n.signed_at DESC NULLS LAST LIMIT 1) AS last_notification,
                (SELECT max(n.expires_at) FROM appstore_notifications n WHERE n.account = a.account)
                    AS subscription_expires_at
            FROM accounts a
            """,
            """
            CREATE VIEW dashboard_notifications_daily WITH (security_invoker = true) AS
            SELECT date_trunc('day', received_at) AS day, notification_type, count(*) AS notifications,
                   count(*) FILTER (WHERE account IS NULL) AS unlinked
            FROM appstore_notifications GROUP BY 1, 2
            """,
        ]),
        // Referrals (docs/account.md, "Referrals"): a code per account, a referral per referred account, and the
        // pool of App Store Connect offer codes a completed referral rewards its referrer from.
        (5, "referrals and offer codes", [
            """
            CREATE TABLE referral_codes (
                account text PRIMARY KEY REFERENCES accounts (account),
                code text NOT NULL UNIQUE
            )
            """,
            """
            CREATE TABLE referrals (
                referred_account text PRIMARY KEY REFERENCES accounts (account),
                referrer text NOT NULL REFERENCES accounts (account),
                code text NOT NULL,
                redeemed_at timestamptz NOT NULL DEFAULT now(),
                completed_at timestamptz,
                completing_notification text,
                reward_code text UNIQUE,
                CHECK (referrer <> referred_account)
            )
            """,
            """
            CREATE TABLE offer_codes (
                code text PRIMARY KEY,
                offer text NOT NULL,
                expires_at timestamptz NOT NULL,
                imported_at timestamptz NOT NULL DEFAULT now(),
                awarded_to text REFERENCES accounts (account),
                awarded_at timestamptz
            )
            """,
            "CREATE INDEX offer_codes_unawarded ON offer_codes (expires_at) WHERE awarded_to IS NULL",
            "ALTER TABLE referral_codes ENABLE ROW LEVEL SECURITY",
            "ALTER TABLE referrals ENABLE ROW LEVEL SECURITY",
            "ALTER TABLE offer_codes ENABLE ROW LEVEL SECURITY",
            "CREATE POLICY account_rows ON referral_codes USING (account IN (SELECT account FROM accounts WHERE role_name = current_user))",
            """
            CREATE POLICY account_rows ON referrals USING (
                referrer IN (SELECT account FROM accounts WHERE role_name = current_user)
                OR referred_account IN (SELECT account FROM accounts WHERE role_name = current_user))
            """,
            "CREATE POLICY account_rows ON offer_codes USING (awarded_to IN (SELECT account FROM accounts WHERE role_name = current_user))",
            // An account redeems another's code without being able to read the codes table: this function, run
            // with its owner's rights, looks the code up and records the referral for the caller's own account
            // (session_user: inside the function current_user is its owner).
            """
            CREATE FUNCTION griptrack_redeem_referral(referral_code text) RETURNS text
            LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
            DECLARE
                mine text;
                theirs text;
            BEGIN
                SELECT account INTO mine FROM public.accounts WHERE role_name = session_user;
                IF mine IS NULL THEN RETURN 'no account'; END IF;
                SELECT account INTO theirs FROM public.referral_codes WHERE code = upper(referral_code);
                IF theirs IS NULL THEN RETURN 'unknown code'; END IF;
                IF theirs = mine THEN RETURN 'own code'; END IF;
                INSERT INTO public.referrals (referred_account, referrer, code)
                VALUES (mine, theirs, upper(referral_code)) ON CONFLICT (referred_account) DO NOTHING;
                IF NOT FOUND THEN RETURN 'already referred'; END IF;
                RETURN 'redeemed';
            END $$
            """,
            "REVOKE ALL ON FUNCTION griptrack_redeem_referral(text) FROM PUBLIC",
        ]),
        // A recording's samples in blocks of 120 consecutive chunks (``ServerWrites/chunksPerBlock``), one row each
        // (docs/sync.md, "Samples on the server"): a row per 0.5 s chunk cost more in tuple header, key and index
        // entry than its samples did. A block keeps each chunk's bytes unchanged, concatenated, with the chunk's
        // codec, first µs, sample count and byte count in arrays, so `sample_chunks` (now a view) gives back the
        // same chunks. Its first sequence is a multiple of the block size, so a re-sent block replaces the same row.
        // The bytes are stored out of line without compression: the store's codec already compressed them, and
        // compressing them again would cost every insert a try that does not pay.
        (6, "sample chunks stored in blocks", [
            """
            CREATE TABLE sample_blocks (
                recording_uuid uuid NOT NULL REFERENCES recordings (uuid) ON DELETE CASCADE,
                first_sequence integer NOT NULL,
                encodings smallint[] NOT NULL,
                first_micros bigint[] NOT NULL,
                sample_counts integer[] NOT NULL,
                byte_counts integer[] NOT NULL,
                samples bytea NOT NULL,
                PRIMARY KEY (recording_uuid, first_sequence)
            )
            """,
            "ALTER TABLE sample_blocks ALTER samples SET STORAGE EXTERNAL",
            // Every chunk already on the server, in the blocks this griptrack writes.
            """
            INSERT INTO sample_blocks
                (recording_uuid, first_sequence, encodings, first_micros, sample_counts, byte_counts, samples)
            SELECT recording_uuid, sequence / 120 * 120,
                   array_agg(encoding ORDER BY sequence), array_agg(first_micros ORDER BY sequence),
                   array_agg(sample_count ORDER BY sequence), array_agg(octet_length(samples) ORDER BY sequence),
                   string_agg(samples, ''::bytea ORDER BY sequence)
            FROM sample_chunks
            GROUP BY recording_uuid, sequence / 120
            """,
            "DROP TABLE sample_chunks",
            // The chunks as they were (a dashboard's, `show --everywhere`'s and the tests' reads): the chunks of a
            // block are consecutive, so the n-th is first_sequence + n - 1. security_invoker: an account's role
            // sees through it only the blocks its row-level security lets it see.
            """
            CREATE VIEW sample_chunks WITH (security_invoker = true) AS
            SELECT b.recording_uuid, b.first_sequence + c.position::integer - 1 AS sequence, c.encoding,
                   c.first_micros, c.sample_count,
                   substring(b.samples FROM (c.byte_end - c.byte_count + 1)::integer FOR c.byte_count) AS samples
            FROM sample_blocks b
            CROSS JOIN LATERAL (
                SELECT u.position, u.encoding, u.first_micros, u.sample_count, u.byte_count,
                       sum(u.byte_count) OVER (ORDER BY u.position) AS byte_end
                FROM unnest(b.encodings, b.first_micros, b.sample_counts, b.byte_counts)
                    WITH ORDINALITY AS u (encoding, first_micros, sample_count, byte_count, position)
            ) c
            """,
            "ALTER TABLE sample_blocks ENABLE ROW LEVEL SECURITY",
            "CREATE POLICY account_rows ON sample_blocks USING (EXISTS (SELECT 1 FROM recordings WHERE recordings.uuid = recording_uuid))",
            // Account roles made before this migration had their rights on the old table (OperatorDatabase).
            """
            DO $$ BEGIN
                IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'griptrack_account') THEN
                    GRANT SELECT, INSERT, UPDATE, DELETE ON sample_blocks TO griptrack_account;
                    GRANT SELECT ON sample_chunks TO griptrack_account;
                END IF;
            END $$
            """,
        ]),
        // Who pulled and how, and the protocol (the store's v8 and v9, docs/sync.md): nullable, as in the store, so
        // every row already here keeps NULL until its device pushes it again; the same CHECKs the store has, so the
        // server never holds a value the store would refuse. Added columns, no rewrite: an account's role reaches
        // them through its table-wide rights.
        (7, "athlete, grip, edge, body weight and protocol on recordings", [
            """
            ALTER TABLE recordings
                ADD COLUMN athlete text,
                ADD COLUMN grip text,
                ADD COLUMN edge_mm double precision CHECK (edge_mm > 0),
                ADD COLUMN body_weight_kg double precision CHECK (body_weight_kg > 0),
                ADD COLUMN protocol_notation text,
                ADD COLUMN protocol_max_kg double precision CHECK (protocol_max_kg > 0)
            """,
        ]),
    ]

    /// The newest version this griptrack knows.
    static var currentVersion: Int { migrations.last?.version ?? 0 }

    /// Brings the server's schema to ``currentVersion``, under the advisory lock.
    ///
    /// - Parameter version: The version to stop at; a test sets an earlier one to make a server an older
    ///   griptrack made.
    /// - Returns: The versions this call applied (empty when another client had already done it).
    /// - Throws: ``SyncError/serverSchemaNewer(serverVersion:knownVersion:)`` (inside a `PostgresTransactionError`)
    ///   or what postgres-nio threw, unmapped: the caller (``SyncClient/prepare(_:)``) tells a lock timeout apart.
    @discardableResult
    static func migrate(
        _ connection: PostgresConnection, upTo version: Int = currentVersion, logger: Logger
    ) async throws -> [Int] {
        let applied = try await connection.withTransaction(logger: logger) { connection in
            // Taken first: CREATE TABLE IF NOT EXISTS alone is not safe against a concurrent creator.
            try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
            // Only when missing: an account's role may not create tables (and PostgreSQL checks that privilege
            // even for CREATE TABLE IF NOT EXISTS of a table that exists).
            var exists = false
            for try await found in try await connection.query(
                "SELECT to_regclass('griptrack_schema') IS NOT NULL", logger: logger
            ).checked(columns: 1).decode(Bool.self) {
                exists = found
            }
            if !exists {
                try await connection.query(
                    """
                    CREATE TABLE griptrack_schema (
                        version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())
                    """, logger: logger)
            }
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
            for migration in migrations where !done.contains(migration.version) && migration.version <= version {
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
