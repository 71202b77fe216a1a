import Foundation
import GripEntitlements
import GripStore
import GripSync
import GripTestSupport
import Logging
import PostgresNIO
import Testing

/// Each account's own PostgreSQL role against row-level security (server migration 3), on a real cluster: one
/// account's credentials neither read nor write another account's rows (docs/account.md, "Each account sees only
/// its own rows").
@Suite(
    "Row-level security per account", .serialized,
    .enabled(if: PostgresCluster.shouldRun, "PostgreSQL 15 is not installed: run scripts/setup"))
struct RowLevelSecurityTests {
    @Test("an account's role sees only its own rows and cannot write another account's, from its own session")
    func accountsAreIsolated() async throws {
        let hub = try await HubHarness()
        let north = try await hub.operatorDatabase.createAccount("north-wall")
        let south = try await hub.operatorDatabase.createAccount("south-wall")
        #expect(north.role != south.role && north.uuid != south.uuid)

        // Each account's Pi syncs with its own role.
        let northPi = try rolePi(hub, north, device: "pi-north")
        let southPi = try rolePi(hub, south, device: "pi-south")
        try northPi.record(label: "north")
        try northPi.store.grantPro(note: "coach", expires: nil, by: "test", now: Date())
        try southPi.record(label: "south")
        try southPi.store.grantPro(note: "coach", expires: nil, by: "test", now: Date())
        for pi in [northPi, southPi] {
            try await pi.client.push(from: pi.store, context: AccessContext(bypass: true), now: Date())
        }
        // Rows only the operator writes, one per account.
        for account in [north.account, south.account] {
            try await hub.execute(
                """
                INSERT INTO appstore_notifications (notification_uuid, account, notification_type, signed_payload)
                VALUES ('n-\(account)', '\(account)', 'SUBSCRIBED', 'x')
                """)
            try await hub.execute(
                """
                INSERT INTO account_grants (statement_id, account, action, note, issued_at, signed_statement)
                VALUES (gen_random_uuid(), '\(account)', 'grant', '', now(), 'x')
                """)
        }

        let asSouth = try await RoleSession(hub: hub, role: south.role)
        for table in [
            "recordings", "devices", "efforts", "subscription_state", "subscription_events", "appstore_notifications",
            "account_grants", "accounts",
        ] {
            #expect(try await asSouth.count("SELECT count(*) FROM \(table)") == 1, "\(table)")
        }
        #expect(try await asSouth.count("SELECT count(*) FROM sample_chunks") == 4)
        #expect(try await asSouth.count("SELECT count(*) FROM recordings WHERE account = 'north-wall'") == 0)
        // The dashboard's views run with the reader's rights: an account's role sees its own line only.
        #expect(try await asSouth.count("SELECT count(*) FROM dashboard_accounts") == 1)
        #expect(try await hub.count("SELECT count(*) FROM dashboard_accounts") == 3)
        #expect(try await hub.count("SELECT sum(recordings) FROM dashboard_accounts") == 2)
        // Writes aimed at the other account change nothing or are refused.
        #expect(try await asSouth.changed("UPDATE recordings SET label = 'taken' WHERE account = 'north-wall'") == 0)
        // South's four chunks are one block (sample_chunks is a view over the blocks).
        #expect(try await asSouth.changed("DELETE FROM sample_blocks") == 1)
        #expect(try await hub.count("SELECT count(*) FROM sample_chunks") == 4)
        #expect(try await hub.count("SELECT count(*) FROM recordings WHERE label = 'north'") == 1)
        let foreignInsert = await asSouth.failure(
            """
            INSERT INTO tombstones (uuid, account, device_name, deleted_at)
            VALUES (gen_random_uuid(), 'north-wall', 'pi-north', now())
            """)
        #expect(foreignInsert?.contains("row-level security") == true, "\(foreignInsert ?? "accepted")")
        let forgedNotification = await asSouth.failure(
            """
            INSERT INTO appstore_notifications (notification_uuid, account, notification_type, signed_payload)
            VALUES ('forged', 'south-wall', 'SUBSCRIBED', 'x')
            """)
        #expect(forgedNotification?.contains("permission denied") == true, "\(forgedNotification ?? "accepted")")
        let forgedGrant = await asSouth.failure("UPDATE account_grants SET note = 'forever'")
        #expect(forgedGrant?.contains("permission denied") == true, "\(forgedGrant ?? "accepted")")
        let newAccount = await asSouth.failure("UPDATE accounts SET role_name = 'x'")
        #expect(newAccount?.contains("permission denied") == true, "\(newAccount ?? "accepted")")
        await asSouth.close()

        // A Pi configured with another account's name but its own role is refused by the server.
        let liar = try HubPi(
            endpoint: roleEndpoint(hub, south.role), device: "pi-liar", account: north.account,
            verifier: try hub.signer.verifier(), operatorKey: nil)
        try liar.record(label: "liar")
        await #expect(throws: SyncError.self) {
            try await liar.client.push(from: liar.store, context: AccessContext(bypass: true), now: Date())
        }
        #expect(try await hub.count("SELECT count(*) FROM recordings WHERE label = 'liar'") == 0)
        await hub.stop()
    }

    private func roleEndpoint(_ hub: HubHarness, _ role: String) -> SyncEndpoint {
        SyncEndpoint(host: hub.cluster.directory, port: PostgresCluster.port, user: role, database: "postgres", tls: .disable)
    }

    private func rolePi(_ hub: HubHarness, _ credentials: AccountCredentials, device: String) throws -> HubPi {
        try HubPi(
            endpoint: roleEndpoint(hub, credentials.role), device: device, account: credentials.account,
            verifier: try hub.signer.verifier(), operatorKey: nil)
    }
}

/// A session logged in as one account's role (the cluster trusts local connections, so the role is what is tested,
/// not its password).
final class RoleSession: Sendable {
    let connection: PostgresConnection

    init(hub: HubHarness, role: String) async throws {
        connection = try await PostgresConnection.connect(
            configuration: PostgresConnection.Configuration(
                unixSocketPath: hub.cluster.directory + "/.s.PGSQL.\(PostgresCluster.port)", username: role,
                password: nil, database: "postgres"),
            id: 9, logger: HubHarness.logger)
    }

    func count(_ sql: String) async throws -> Int {
        let rows = try await connection.query(PostgresQuery(unsafeSQL: "SELECT (\(sql))::bigint"), logger: HubHarness.logger)
        for try await value in rows.decode(Int64.self) { return Int(value) }
        return 0
    }

    /// Rows a statement changed (its `RETURNING 1` rows).
    func changed(_ sql: String) async throws -> Int {
        let rows = try await connection.query(PostgresQuery(unsafeSQL: sql + " RETURNING 1"), logger: HubHarness.logger)
        var count = 0
        for try await _ in rows { count += 1 }
        return count
    }

    /// The server's message when a statement fails, `nil` when it succeeds.
    func failure(_ sql: String) async -> String? {
        do {
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: HubHarness.logger)
            return nil
        } catch let error as PSQLError {
            return error.serverInfo?[.message] ?? "\(error)"
        } catch {
            return "\(error)"
        }
    }

    func close() async { try? await connection.close() }
}
