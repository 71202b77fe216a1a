import Foundation
import GripSystem
import GripEntitlements
import Logging
import PostgresNIO

/// What the operator does on the server with the operator role (`griptrack admin`; docs/account.md): publish
/// signed central grants. Pis verify what it publishes with the operator's public key, so this role's power over Pro
/// is exactly the private key's, not the database's.
package struct OperatorDatabase: Sendable {
    private let client: SyncClient

    /// Creates a handle (each call opens and closes one connection).
    ///
    /// - Parameters:
    ///   - endpoint: The server, as the operator role.
    ///   - timeouts: Deadlines.
    ///   - logger: Connection events.
    package init(endpoint: SyncEndpoint, timeouts: SyncTimeouts = .standard, logger: Logger) {
        var settings = SyncSettings(endpoint: endpoint, account: "", deviceName: "griptrack-admin")
        settings.timeouts = timeouts
        client = SyncClient(settings: settings, logger: logger)
    }

    /// Stores a signed statement (a grant or a revocation) for its account's Pis to pull at their next sync.
    ///
    /// - Parameters:
    ///   - statement: What was signed.
    ///   - signed: Its signed form (``OperatorStatement/signed(with:)``).
    /// - Throws: ``SyncError``.
    package func publish(_ statement: OperatorStatement, signed: String) async throws(SyncError) {
        let limit = client.settings.timeouts.batch
        let logger = client.logger
        try await client.withConnection { connection throws(SyncError) in
            try await client.wait(.write("publish the signed statement"), on: connection, within: limit) { connection in
                _ = try await connection.query(
                    """
                    INSERT INTO account_grants
                        (statement_id, account, action, note, expires_at, issued_at, signed_statement)
                    VALUES (\(statement.id), \(statement.account), \(statement.action.rawValue), \(statement.note),
                            \(statement.expires), \(statement.issued), \(signed))
                    """, logger: logger)
            }
        }
    }

    /// What ``importOfferCodes(_:offer:expires:)`` did.
    package struct OfferCodeImport: Sendable, Equatable {
        /// Codes that were not in the pool before.
        package var added: Int
        /// Referrers owed a code (their referral completed while the pool was empty) who got one of them.
        package var awarded: Int

        package init(added: Int, awarded: Int) {
            self.added = added
            self.awarded = awarded
        }
    }

    /// Adds offer codes from App Store Connect to the referral reward pool (`griptrack admin offer-codes import`),
    /// then, in the same transaction, gives a code to every referrer still owed one while codes last.
    /// Codes already in the pool are left as they are.
    ///
    /// - Parameters:
    ///   - codes: The one-time codes.
    ///   - offer: The offer's name in App Store Connect.
    ///   - expires: When the codes stop working; an expired code is never awarded.
    /// - Returns: How many codes were new, and how many owed rewards they paid.
    /// - Throws: ``SyncError``.
    package func importOfferCodes(
        _ codes: [String], offer: String, expires: Date
    ) async throws(SyncError) -> OfferCodeImport {
        let limit = client.settings.timeouts.batch
        let logger = client.logger
        return try await client.withConnection { connection throws(SyncError) in
            try await client.wait(.write("import the offer codes"), on: connection, within: limit) { connection in
                try await connection.withTransaction(logger: logger) { connection in
                    var added = 0
                    for try await _ in try await connection.query(
                        """
                        INSERT INTO offer_codes (code, offer, expires_at)
                        SELECT code, \(offer), \(expires) FROM unnest(\(codes)::text[]) AS code
                        ON CONFLICT (code) DO NOTHING RETURNING 1
                        """, logger: logger)
                    {
                        added += 1
                    }
                    let awarded = try await ReferralCompletion.awardOwed(on: connection, logger: logger)
                    for case .rewarded(let referrer, let code) in awarded {
                        logger.info("Owed referral reward awarded", metadata: ["referrer": "\(referrer)", "code": "\(code)"])
                    }
                    return OfferCodeImport(added: added, awarded: awarded.count)
                }
            }
        }
    }

    /// Every account's figures from the `dashboard_accounts` view (`griptrack admin report`).
    ///
    /// - Returns: One row per account, by name.
    /// - Throws: ``SyncError``.
    package func report() async throws(SyncError) -> [AccountReport] {
        let limit = client.settings.timeouts.read
        let logger = client.logger
        return try await client.withConnection { connection throws(SyncError) in
            try await client.wait(.read("read the dashboard"), on: connection, within: limit) { connection in
                let rows = try await connection.query(
                    """
                    SELECT account, account_uuid, created_at, devices, recordings, samples, last_push_at, pro_devices,
                           last_notification, subscription_expires_at
                    FROM dashboard_accounts ORDER BY account
                    """, logger: logger)
                var result: [AccountReport] = []
                for try await row in rows.checked(columns: 10).decode(
                    (String, UUID, Date, Int64, Int64, Int64, Date?, Int64, String?, Date?).self)
                {
                    result.append(
                        AccountReport(
                            account: row.0, accountUUID: row.1, createdAt: row.2, devices: Int(row.3),
                            recordings: Int(row.4), samples: Int(row.5), lastPush: row.6, proDevices: Int(row.7),
                            lastNotification: row.8, subscriptionExpires: row.9))
                }
                return result
            }
        }
    }

    /// Creates an account with its own PostgreSQL role (`griptrack admin account create`): the role may read and
    /// write only the account's rows (row-level security, server migration 3), and the account's UUID is the
    /// `appAccountToken` its app puts on purchases. One transaction: a failure leaves neither role nor row.
    ///
    /// The operator role needs CREATEROLE. The group role `griptrack_account`, which carries the table privileges
    /// every account role shares, is created and granted here the first time.
    ///
    /// - Parameter name: The account (`[sync] account` on its Pis), 1–64 characters, no control characters.
    /// - Returns: The account's UUID, role and password (shown once; only PostgreSQL keeps its hash).
    /// - Throws: ``SyncError``; an existing account is ``SyncError/server(operation:detail:)``.
    package func createAccount(_ name: String) async throws(SyncError) -> AccountCredentials {
        guard (1...64).contains(name.count), !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw .server(operation: "create the account", detail: "an account name is 1 to 64 characters without control characters")
        }
        var credentials = AccountCredentials(
            account: name, uuid: UUID(), role: Self.roleName(for: name),
            password: (0..<24).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max)) }.joined(),
            referralCode: "")
        let limit = client.settings.timeouts.batch
        let logger = client.logger
        let made = credentials
        do throws(SyncError) {
            credentials.referralCode = try await client.withConnection { connection throws(SyncError) in
                try await client.wait(.write("create the account"), on: connection, within: limit) { connection in
                    try await connection.withTransaction(logger: logger) { connection in
                        let credentials = made
                        // The GRANTs below rewrite the same catalogue rows (the tables' ACLs) for every account: two
                        // creations at once fail with "tuple concurrently updated". One at a time, by a transaction
                        // lock that the commit releases.
                        try await connection.query(
                            "SELECT pg_advisory_xact_lock(\(Self.accountCreationLock))", logger: logger)
                        for statement in Self.accountRoleStatements(credentials) {
                            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                        }
                        try await connection.query(
                            """
                            INSERT INTO accounts (account, account_uuid, role_name)
                            VALUES (\(credentials.account), \(credentials.uuid), \(credentials.role))
                            """, logger: logger)
                        // The first of the candidates no account holds yet (4 characters of 32: a clash is rare, five
                        // in a row would need a million accounts).
                        var code = ""
                        for try await value in try await connection.query(
                            """
                            INSERT INTO referral_codes (account, code)
                            SELECT \(credentials.account), candidate FROM unnest(\(Self.referralCandidates())::text[]) AS candidate
                            WHERE NOT EXISTS (SELECT 1 FROM referral_codes WHERE code = candidate) LIMIT 1
                            RETURNING code
                            """, logger: logger
                        ).checked(columns: 1).decode(String.self) {
                            code = value
                        }
                        return code
                    }
                }
            }
        } catch .server(let operation, let detail) where detail.contains("SQLSTATE 23505") {
            // A unique key: the account's name (or, once in 2^122, its UUID) is taken.
            throw .server(operation: operation, detail: "an account named \(name.quotedForLog()) exists already; choose another name")
        }
        return credentials
    }

    /// The advisory lock that serialises account creation (any constant apart from the schema migration's).
    static let accountCreationLock: Int64 = 0x6772_6970_6163_6374  // "gripacct"

    /// The statements that make the group role (once), grant it the tables, and create the account's login role.
    /// The role name and password are made here from `[a-z0-9_]` only, so they can be spelled into the SQL.
    static func accountRoleStatements(_ credentials: AccountCredentials) -> [String] {
        [
            """
            DO $$ BEGIN
                IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'griptrack_account') THEN
                    CREATE ROLE griptrack_account NOLOGIN;
                END IF;
            END $$
            """,
            """
            GRANT SELECT, INSERT, UPDATE, DELETE
            ON devices, recordings, efforts, sample_blocks, tombstones, subscription_state, subscription_events
            TO griptrack_account
            """,
            """
            GRANT SELECT
            ON sample_chunks, accounts, appstore_notifications, account_grants, griptrack_schema, dashboard_accounts
            TO griptrack_account
            """,
            "GRANT SELECT ON referral_codes, referrals, offer_codes TO griptrack_account",
            "GRANT EXECUTE ON FUNCTION griptrack_redeem_referral(text) TO griptrack_account",
            "CREATE ROLE \(credentials.role) LOGIN PASSWORD '\(credentials.password)' IN ROLE griptrack_account",
        ]
    }

    /// Five random referral codes `GRIP-XXXX` (letters and digits without 0, O, 1 and I, which read alike).
    static func referralCandidates() -> [String] {
        let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        return (0..<5).map { _ in "GRIP-" + String((0..<4).map { _ in alphabet.randomElement()! }) }
    }

    /// `gt_` and the account's name in `[a-z0-9_]` (at most 40 characters), then 8 random hex digits: a valid,
    /// unquoted PostgreSQL identifier that two similar names cannot share.
    static func roleName(for account: String) -> String {
        let cleaned = String(
            account.lowercased().unicodeScalars.map { ("a"..."z").contains($0) || ("0"..."9").contains($0) ? Character($0) : "_" }
                .prefix(40))
        return "gt_\(cleaned)_" + String(UUID().uuidString.lowercased().filter(\.isHexDigit).prefix(8))
    }
}

/// A new account's credentials, as `griptrack admin account create` prints them.
package struct AccountCredentials: Sendable, Equatable, Encodable {
    /// The account's name.
    package var account: String
    /// Its UUID: the app's `appAccountToken`.
    package var uuid: UUID
    /// Its PostgreSQL role, for its Pis' `[sync] url`.
    package var role: String
    /// The role's password, for its Pis' `[sync] password_file`.
    package var password: String
    /// The account's referral code (`GRIP-XXXX`), for others to redeem.
    package var referralCode: String
}
