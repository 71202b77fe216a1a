import Logging
import PostgresNIO

/// What griptrack's migrations made of the server's tables, compared with what the server's catalog says now
/// (docs/sync.md, "Schema"). The version row alone cannot tell that someone altered a column afterwards; a push to
/// a table whose `samples` became `text` would report success and store data nothing can read back.
struct SchemaCheck: Sendable, Equatable {
    /// A column as `pg_attribute` describes it: its type as `format_type` spells it, and whether it is NOT NULL.
    struct Column: Sendable, Equatable {
        var type: String
        var notNull: Bool
    }

    /// Table → column → shape.
    var columns: [String: [String: Column]]
    /// Table → primary key columns, in key order (the upserts' ON CONFLICT targets need them).
    var primaryKeys: [String: [String]]

    /// What the migrations create: the tables griptrack writes and reads, each column and key.
    static let expected = SchemaCheck(
        columns: [
            "devices": table([
                ("account", "text", true), ("device_name", "text", true),
                ("first_seen_at", "timestamp with time zone", true), ("last_push_at", "timestamp with time zone", true),
            ]),
            "recordings": table([
                ("uuid", "uuid", true), ("account", "text", true), ("device_name", "text", true),
                ("started_at", "timestamp with time zone", true), ("ended_at", "timestamp with time zone", false),
                ("device", "text", true), ("profile", "text", true), ("hand", "text", false), ("label", "text", false),
                ("state", "text", true), ("sample_count", "bigint", true), ("effort_count", "integer", true),
                ("max_kg", "double precision", false), ("average_kg", "double precision", false),
                ("updated_at", "timestamp with time zone", true),
                // Since migration 7.
                ("athlete", "text", false), ("grip", "text", false), ("edge_mm", "double precision", false),
                ("body_weight_kg", "double precision", false), ("protocol_notation", "text", false),
                ("protocol_max_kg", "double precision", false),
            ]),
            "efforts": table([
                ("recording_uuid", "uuid", true), ("effort_index", "integer", true), ("start_micros", "bigint", true),
                ("end_micros", "bigint", true), ("peak_kg", "double precision", true),
                ("mean_kg", "double precision", true), ("duration_micros", "bigint", true),
                ("time_to_peak_micros", "bigint", true), ("rfd_kg_per_s", "double precision", false),
                ("impulse_kg_s", "double precision", true), ("baseline_kg", "double precision", true),
                ("is_open_start", "boolean", true), ("is_open", "boolean", true),
            ]),
            // Since migration 6; `sample_chunks` is a view over it, which the pushes never write.
            "sample_blocks": table([
                ("recording_uuid", "uuid", true), ("first_sequence", "integer", true),
                ("encodings", "smallint[]", true), ("first_micros", "bigint[]", true),
                ("sample_counts", "integer[]", true), ("byte_counts", "integer[]", true), ("samples", "bytea", true),
            ]),
            "tombstones": table([
                ("uuid", "uuid", true), ("account", "text", true), ("device_name", "text", true),
                ("deleted_at", "timestamp with time zone", true),
            ]),
            "subscription_state": table([
                ("account", "text", true), ("device_name", "text", true), ("tier", "text", true),
                ("source", "text", true), ("reason", "text", true), ("expires_at", "timestamp with time zone", false),
                ("changed_at", "timestamp with time zone", true),
            ]),
            "subscription_events": table([
                ("event_id", "uuid", true), ("account", "text", true), ("device_name", "text", true),
                ("event", "text", true), ("tier", "text", true), ("source", "text", true), ("reason", "text", true),
                ("expires_at", "timestamp with time zone", false), ("at", "timestamp with time zone", true),
            ]),
            "accounts": table([
                ("account", "text", true), ("account_uuid", "uuid", true), ("role_name", "text", false),
                ("created_at", "timestamp with time zone", true),
            ]),
            "appstore_notifications": table([
                ("notification_uuid", "text", true), ("account", "text", false), ("app_account_token", "uuid", false),
                ("notification_type", "text", true), ("subtype", "text", false),
                ("original_transaction_id", "text", false), ("signed_at", "timestamp with time zone", false),
                ("expires_at", "timestamp with time zone", false), ("signed_payload", "text", true),
                ("signed_transaction", "text", false), ("signed_renewal_info", "text", false),
                ("received_at", "timestamp with time zone", true),
            ]),
            "account_grants": table([
                ("statement_id", "uuid", true), ("account", "text", true), ("action", "text", true),
                ("note", "text", true), ("expires_at", "timestamp with time zone", false),
                ("issued_at", "timestamp with time zone", true), ("signed_statement", "text", true),
            ]),
            "referral_codes": table([("account", "text", true), ("code", "text", true)]),
            "referrals": table([
                ("referred_account", "text", true), ("referrer", "text", true), ("code", "text", true),
                ("redeemed_at", "timestamp with time zone", true), ("completed_at", "timestamp with time zone", false),
                ("completing_notification", "text", false), ("reward_code", "text", false),
            ]),
            "offer_codes": table([
                ("code", "text", true), ("offer", "text", true), ("expires_at", "timestamp with time zone", true),
                ("imported_at", "timestamp with time zone", true), ("awarded_to", "text", false),
                ("awarded_at", "timestamp with time zone", false),
            ]),
        ],
        primaryKeys: [
            "devices": ["account", "device_name"], "recordings": ["uuid"],
            "efforts": ["recording_uuid", "effort_index"], "sample_blocks": ["recording_uuid", "first_sequence"],
            "tombstones": ["uuid"], "subscription_state": ["account", "device_name"],
            "subscription_events": ["event_id"], "accounts": ["account"],
            "appstore_notifications": ["notification_uuid"], "account_grants": ["statement_id"],
            "referral_codes": ["account"], "referrals": ["referred_account"], "offer_codes": ["code"],
        ])

    private static func table(_ columns: [(String, String, Bool)]) -> [String: Column] {
        Dictionary(uniqueKeysWithValues: columns.map { ($0.0, Column(type: $0.1, notNull: $0.2)) })
    }

    /// What differs from `expected`, one phrase each, in a stable order. Extra columns and tables are allowed
    /// (a dashboard's own additions); missing or changed ones are not.
    ///
    /// - Parameter expected: What the migrations made.
    /// - Returns: Empty when the server matches.
    func differences(from expected: SchemaCheck) -> [String] {
        var result: [String] = []
        for table in expected.columns.keys.sorted() {
            guard let found = columns[table] else {
                result.append("table \(table) is missing")
                continue
            }
            let wanted = expected.columns[table] ?? [:]
            for name in wanted.keys.sorted() {
                guard let want = wanted[name] else { continue }
                guard let have = found[name] else {
                    result.append("\(table).\(name) is missing")
                    continue
                }
                if have.type != want.type { result.append("\(table).\(name) is \(have.type), not \(want.type)") }
                if have.notNull != want.notNull {
                    result.append("\(table).\(name) is \(have.notNull ? "NOT NULL" : "nullable"), "
                        + "not \(want.notNull ? "NOT NULL" : "nullable")")
                }
            }
            let key = primaryKeys[table] ?? []
            let wantedKey = expected.primaryKeys[table] ?? []
            if key != wantedKey {
                result.append("the primary key of \(table) is " + (key.isEmpty ? "missing" : "(\(key.joined(separator: ", ")))")
                    + ", not (\(wantedKey.joined(separator: ", ")))")
            }
        }
        return result
    }

    /// Reads the shape of griptrack's tables in the connection's current schema.
    ///
    /// - Throws: What postgres-nio throws.
    static func read(_ connection: PostgresConnection, logger: Logger) async throws -> SchemaCheck {
        let tables = Array(expected.columns.keys)
        var columns: [String: [String: Column]] = [:]
        for try await (table, column, type, notNull) in try await connection.query(
            """
            SELECT c.relname::text, a.attname::text, format_type(a.atttypid, a.atttypmod), a.attnotnull
            FROM pg_attribute a
            JOIN pg_class c ON c.oid = a.attrelid
            WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')
              AND c.relname = ANY(\(tables)) AND a.attnum > 0 AND NOT a.attisdropped
            """, logger: logger
        ).checked(columns: 4).decode((String, String, String, Bool).self) {
            columns[table, default: [:]][column] = Column(type: type, notNull: notNull)
        }
        var keys: [String: [String]] = [:]
        for try await (table, column) in try await connection.query(
            """
            SELECT c.relname::text, a.attname::text
            FROM pg_index i
            JOIN pg_class c ON c.oid = i.indrelid
            CROSS JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY AS k (attnum, position)
            JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
            WHERE i.indisprimary AND c.relnamespace = current_schema()::regnamespace AND c.relname = ANY(\(tables))
            ORDER BY c.relname, k.position
            """, logger: logger
        ).checked(columns: 2).decode((String, String).self) {
            keys[table, default: []].append(column)
        }
        return SchemaCheck(columns: columns, primaryKeys: keys)
    }
}
