import Foundation
import GRDB
import Testing

/// A hand-damaged row (`startedAt = 'garbage'`) once made list, stats and trends die with SIGILL.
@Suite("griptrack doctor and damaged rows")
struct DoctorTests {
    @Test("list, stats and trends keep working beside a damaged row; doctor --repair sets it aside")
    func damagedRowEndToEnd() throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        for _ in 0..<3 { try sandbox.run("replay", sandbox.capture("repeaters"), "--save") }
        try sandbox.run("pro", "grant", "--note", "trends need Pro")
        let queue = try DatabaseQueue(path: sandbox.database)
        try queue.write { try $0.execute(sql: "UPDATE recording SET startedAt = 'garbage' WHERE id = 2") }

        let list = try sandbox.run("list")
        #expect(list.status == 0, "\(list)")
        #expect(list.stdout.contains("\n     1  ") && list.stdout.contains("\n     3  "), "\(list)")
        #expect(list.stderr.contains("Recording 2 cannot be read (startedAt holds \"garbage\", not a Date)"), "\(list)")
        let json = try sandbox.run("list", "--json")
        #expect(json.stdout.contains("\"reason\" : \"startedAt holds \\\"garbage\\\", not a Date\""), "\(json)")
        #expect(try sandbox.run("stats").status == 0)
        #expect(try sandbox.run("trends").status == 0)

        let check = try sandbox.run("doctor")
        #expect(check.status == 1, "\(check)")
        #expect(check.stdout.contains("Integrity:   ok\n"), "\(check)")
        #expect(check.stdout.contains("Damaged:     recording 2: startedAt holds \"garbage\", not a Date\n"), "\(check)")
        let repair = try sandbox.run("doctor", "--repair")
        #expect(repair.status == 0, "\(repair)")
        #expect(repair.stdout.contains("→ quarantined"), "\(repair)")
        let after = try sandbox.run("list")
        #expect(after.stderr.isEmpty, "\(after)")
        #expect(try sandbox.run("doctor").status == 0)
    }
}
