import Foundation
import GRDB
import Testing

/// A hand-damaged row (`startedAt = 'garbage'`) once made list, stats and trends die with SIGILL.
@Suite("griptrack doctor and damaged rows")
struct DoctorTests {
    @Test("list, stats and trends keep working beside a damaged row; doctor --repair sets it aside")
    func damagedRowEndToEnd() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        for _ in 0..<3 { try await sandbox.run("replay", sandbox.capture("repeaters"), "--save") }
        try await sandbox.run("pro", "grant", "--note", "trends need Pro")
        let queue = try DatabaseQueue(path: sandbox.database)
        try await queue.write { try $0.execute(sql: "UPDATE recording SET startedAt = 'garbage' WHERE id = 2") }

        let list = try await sandbox.run("list")
        #expect(list.status == 0, "\(list)")
        #expect(list.stdout.contains("\n     1  ") && list.stdout.contains("\n     3  "), "\(list)")
        #expect(list.stderr.contains("Recording 2 cannot be read (startedAt holds \"garbage\", not a Date)"), "\(list)")
        let json = try await sandbox.run("list", "--json")
        #expect(json.stdout.contains("\"reason\" : \"startedAt holds \\\"garbage\\\", not a Date\""), "\(json)")
        #expect(try await sandbox.run("stats").status == 0)
        #expect(try await sandbox.run("trends").status == 0)

        let check = try await sandbox.run("doctor")
        #expect(check.status == 1, "\(check)")
        #expect(check.stdout.contains("Integrity:   ok\n"), "\(check)")
        #expect(check.stdout.contains("Damaged:     recording 2: startedAt holds \"garbage\", not a Date\n"), "\(check)")
        let repair = try await sandbox.run("doctor", "--repair")
        #expect(repair.status == 0, "\(repair)")
        #expect(repair.stdout.contains("→ quarantined"), "\(repair)")
        let after = try await sandbox.run("list")
        #expect(after.stderr.isEmpty, "\(after)")
        #expect(try await sandbox.run("doctor").status == 0)
    }
}
