import Foundation
import GripTestSupport
import Testing

/// `griptrack admin` against a real PostgreSQL 15, and a Pi's `griptrack sync` with the account's own role
/// (docs/account.md).
@Suite(
    "griptrack admin", .serialized,
    .enabled(if: PostgresCluster.shouldRun, "PostgreSQL 15 is not installed: run scripts/setup"))
struct AdminCommandTests {
    @Test("admin creates an account with its role and signs a grant; the account's Pi is Pro after its sync")
    func accountAndGrant() async throws {
        let cluster = try PostgresCluster()
        let server = "localhost/postgres?sslmode=disable&host=\(cluster.directory)"
        let operatorSide = try CLISandbox(config: "[hub]\nurl = \"postgres://griptrack@\(server)\"\n")
        defer { operatorSide.cleanUp() }
        let keyPath = operatorSide.directory.appendingPathComponent("operator.key").path
        let generated = try await operatorSide.plain(["admin", "key", "generate", "--out", keyPath, "--json"])
        #expect(generated.status == 0, "\(generated)")
        let publicKey = try #require(Self.json(generated)["operator_key"] as? String, "\(generated)")
        // The key is never overwritten.
        #expect(try await operatorSide.plain(["admin", "key", "generate", "--out", keyPath]).status == 1)

        let created = try await operatorSide.plain(
            ["admin", "account", "create", "crag-gym", "--config", operatorSide.config, "--json"])
        #expect(created.status == 0, "\(created)")
        let role = try #require(Self.json(created)["role"] as? String, "\(created)")
        #expect(UUID(uuidString: Self.json(created)["uuid"] as? String ?? "") != nil)
        // The same name twice is refused by the server.
        let twice = try await operatorSide.plain(["admin", "account", "create", "crag-gym", "--config", operatorSide.config])
        #expect(twice.status == 1, "\(twice)")
        // In an operator's words: there is no outbox on this side.
        #expect(!twice.stderr.contains("outbox"), "\(twice)")
        #expect(twice.stderr.contains("The command changed nothing"), "\(twice)")

        let pi = try CLISandbox(
            config: """
                [sync]
                url = "postgres://\(role)@\(server)"
                account = "crag-gym"
                device_name = "pi-gym"
                operator_key = "\(publicKey)"
                """)
        defer { pi.cleanUp() }
        let before = try await pi.run("sync")
        #expect(before.status == 3, "\(before)")

        let grant = try await operatorSide.plain(
            ["admin", "grant", "crag-gym", "--note", "PT partner", "--key", keyPath, "--config", operatorSide.config])
        #expect(grant.status == 0, "\(grant)")
        #expect(grant.stdout.contains("Pro granted to account crag-gym"), "\(grant)")
        let after = try await pi.run("sync")
        #expect(after.status == 0, "\(after)")
        let status = Self.json(try await pi.run("pro", "status", "--json"))
        #expect(status["tier"] as? String == "pro")
        #expect((status["reason"] as? String)?.contains("PT partner") == true, "\(status)")

        // The report sees the account, its Pi and the Pi's mirrored Pro.
        let report = try await operatorSide.plain(["admin", "report", "--json", "--config", operatorSide.config])
        #expect(report.status == 0, "\(report)")
        let accounts = Self.json(report)["accounts"] as? [[String: Any]] ?? []
        #expect(accounts.map { $0["account"] as? String } == ["crag-gym"], "\(report)")
        #expect(accounts.first?["devices"] as? Int == 1 && accounts.first?["pro_devices"] as? Int == 1, "\(report)")
        // The keys docs/account.md gives the dashboard view.
        #expect(UUID(uuidString: accounts.first?["account_uuid"] as? String ?? "") != nil, "\(report)")
        #expect(accounts.first?["created_at"] is String, "\(report)")
        #expect(accounts.first?["uuid"] == nil, "\(report)")
        let text = try await operatorSide.plain(["admin", "report", "--config", operatorSide.config])
        #expect(text.stdout.contains("crag-gym"), "\(text)")

        // The offer-code pool from an App Store Connect CSV, then the Pi's referral status.
        let csv = operatorSide.directory.appendingPathComponent("codes.csv")
        try Data("Offer Codes\nAAAA1111BBBB\nCCCC2222DDDD\nAAAA1111BBBB\n\n".utf8).write(to: csv)
        let imported = try await operatorSide.plain(
            ["admin", "offer-codes", "import", csv.path, "--offer", "referral-month", "--expires", "2099-01-01",
             "--config", operatorSide.config, "--json"])
        #expect(imported.status == 0, "\(imported)")
        #expect(Self.json(imported)["added"] as? Int == 2, "\(imported)")
        let referral = try await pi.run("referral", "status", "--json")
        #expect(referral.status == 0, "\(referral)")
        #expect((Self.json(referral)["code"] as? String)?.hasPrefix("GRIP-") == true, "\(referral)")
        let own = try await pi.run("referral", "redeem", Self.json(referral)["code"] as? String ?? "")
        #expect(own.status == 5, "\(own)")

        // A key file its group or others can read is refused before anything is signed.
        chmod(keyPath, 0o644)
        let loose = try await operatorSide.plain(["admin", "revoke", "crag-gym", "--key", keyPath, "--config", operatorSide.config])
        #expect(loose.status == 5, "\(loose)")
        #expect(loose.stderr.contains("chmod 600"), "\(loose)")
    }

    static func json(_ result: CLIRunner.Result) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]) ?? [:]
    }
}
