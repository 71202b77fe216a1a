import Foundation
import Testing

/// `griptrack sync` without a server: the Pro gate, the status, and configuration errors.
@Suite("griptrack sync")
struct SyncCommandTests {
    static let config = """
        [entitlements]
        bypass = false

        [sync]
        url = "postgres://griptrack@127.0.0.1:1/griptrack?sslmode=disable"
        account = "crag-gym"
        device_name = "pi-test"
        """

    @Test("the free plan is refused with exit 3 and the resolver's reason; the outbox keeps the recording")
    func freePlanRefused() throws {
        let sandbox = try CLISandbox(config: Self.config)
        defer { sandbox.cleanUp() }
        try sandbox.run("replay", sandbox.capture("max-pulls"), "--save")
        let plan = try sandbox.run("pro", "status")
        let reason = try #require(plan.stdout.split(separator: "\n").first.map(String.init))
        let result = try sandbox.run("sync")
        #expect(result.status == 3, "\(result)")
        #expect(result.stderr.contains("Sync needs Pro (\(reason))"), "\(result)")
        let status = try sandbox.run("sync", "status", "--json")
        #expect(status.status == 0)
        #expect(!status.stdout.contains("\"pending_rows\" : 0"), "\(status)")
        #expect(status.stdout.contains("Sync needs Pro"), "\(status)")
    }

    @Test("with Pro, an unreachable server exits 1 naming it, and sync status shows the error")
    func unreachableServer() throws {
        let sandbox = try CLISandbox(config: Self.config.replacingOccurrences(of: "bypass = false", with: "bypass = true"))
        defer { sandbox.cleanUp() }
        try sandbox.run("replay", sandbox.capture("max-pulls"), "--save")
        let result = try sandbox.run("sync")
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("Could not connect to PostgreSQL at griptrack@127.0.0.1:1/griptrack"), "\(result)")
        let status = try sandbox.run("sync", "status")
        #expect(status.stdout.contains("Last error: "), "\(status)")
        #expect(status.stdout.contains("Could not connect"), "\(status)")
    }

    @Test("sync without [sync] url exits 5 naming the key")
    func notConfigured() throws {
        let sandbox = try CLISandbox(config: "[entitlements]\nbypass = true\n")
        defer { sandbox.cleanUp() }
        let result = try sandbox.run("sync")
        #expect(result.status == 5, "\(result)")
        #expect(result.stderr.contains("[sync] url is not set"), "\(result)")
    }
}
