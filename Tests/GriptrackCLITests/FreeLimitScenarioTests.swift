import Foundation
import GripTestSupport
import Testing

/// Issue 3's "done when": six different recordings into a fresh free database, then Pro granted and revoked.
@Suite("free limit through the CLI")
struct FreeLimitScenarioTests {
    static let refusal = "Free plan keeps 5 recordings (5 of 5 used). Delete one with `griptrack delete <id>` or upgrade to Pro."
    static let oneLeft = "One free recording left (4 of 5 stored): the next fills the free plan, and the one after is refused."
    static let full = "The free plan is full (5 of 5 stored): new recordings are refused until you delete one (`griptrack "
        + "delete <id>`) or get Pro, which keeps every recording."

    @Test("five of six recordings are stored, the sixth is refused whole; Pro admits it; after revoke five show and a seventh is refused")
    func doneWhen() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        for (index, name) in ["repeaters", "max-pulls", "tare-offset", "false-start", "mtu247"].enumerated() {
            let result = try await sandbox.run("replay", sandbox.capture(name), "--save")
            #expect(result.status == 0, "\(name): \(result)")
            #expect(result.stdout.contains("Saved recording 1 of the capture as #"), "\(name): \(result)")
            // Warned before the refusal: the 4th save leaves one slot, the 5th fills the plan.
            #expect(result.stdout.contains(Self.oneLeft) == (index == 3), "\(name): \(result)")
            #expect(result.stdout.contains(Self.full) == (index == 4), "\(name): \(result)")
        }
        #expect(try await count(sandbox) == 5)
        let full = try await sandbox.run("list")
        #expect(full.stdout.hasSuffix(Self.full + "\n"), "\(full)")
        let daemonless = try await sandbox.run("status", "--socket", sandbox.directory.path + "/none.sock")
        #expect(daemonless.stdout.contains("\n           " + Self.full + "\n"), "\(daemonless)")

        let sixth = try await sandbox.run("replay", sandbox.capture("malformed"), "--save")
        #expect(sixth.status == 3, "\(sixth)")
        #expect(sixth.stderr == "griptrack: Recording 1 of the capture was not saved: \(Self.refusal)\n")
        #expect(try await count(sandbox) == 5, "nothing of the refused recording is stored")
        let samplesBefore = try await totalSamples(sandbox)

        let status = try await sandbox.run("pro", "status")
        #expect(status.stdout == "Free: no Pro subscription\nFree: 5 of 5 recordings stored\n")

        let grant = try await sandbox.run("pro", "grant", "--note", "PT partner", "--expires", "2099-03-01")
        #expect(grant.status == 0)
        #expect(grant.stdout == "Pro: complimentary — PT partner, until 2099-03-01\n")
        let admitted = try await sandbox.run("replay", sandbox.capture("malformed"), "--save")
        #expect(admitted.status == 0, "\(admitted)")
        #expect(admitted.stdout.contains("Saved recording 1 of the capture as #6 (1688 samples)."), "\(admitted)")
        #expect(try await count(sandbox) == 6)
        #expect(try await totalSamples(sandbox) == samplesBefore + 1688)

        let revoke = try await sandbox.run("pro", "revoke")
        #expect(revoke.status == 0)
        #expect(revoke.stdout == "Free: no Pro subscription\nFree: 6 recordings stored, the free plan keeps 5\n")

        let list = try await sandbox.run("list")
        #expect(list.status == 0)
        let rows = list.stdout.split(separator: "\n").dropFirst().filter { $0.first == " " }
        #expect(rows.count == 5, "\(list)")
        #expect(list.stdout.hasSuffix(
            "1 older recording is hidden: the free plan shows the last 5. It is kept, not deleted; Pro shows it again.\n"
                + "The free plan is full (6 stored, it keeps 5): new recordings are refused until you delete one "
                + "(`griptrack delete <id>`) or get Pro, which keeps every recording.\n"), "\(list)")

        let seventh = try await sandbox.run("replay", sandbox.capture("u32-wrap"), "--save")
        #expect(seventh.status == 3, "\(seventh)")
        #expect(seventh.stderr == "griptrack: Recording 1 of the capture was not saved: Free plan keeps 5 recordings "
            + "(6 stored). Delete 2 with `griptrack delete <id>` or upgrade to Pro.\n")
        #expect(try await count(sandbox) == 6, "losing Pro deleted nothing, and the seventh was not stored")
    }

    @Test("a capture with two recordings stores the first and refuses the second when one slot is left")
    func twoSessionsAtTheLimit() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        for name in ["repeaters", "max-pulls", "tare-offset", "false-start"] {
            #expect(try await sandbox.run("replay", sandbox.capture(name), "--save").status == 0)
        }
        let result = try await sandbox.run("replay", sandbox.capture("two-sessions"), "--save")
        #expect(result.status == 3)
        #expect(result.stdout.contains("Saved recording 1 of the capture as #5"))
        #expect(result.stderr == "griptrack: Recording 2 of the capture was not saved: \(Self.refusal)\n")
        #expect(try await count(sandbox) == 5)
    }

    @Test("deleting a recording frees its slot")
    func deleteFreesASlot() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        for name in ["repeaters", "max-pulls", "tare-offset", "false-start", "mtu247"] {
            try await sandbox.run("replay", sandbox.capture(name), "--save")
        }
        let refused = try await sandbox.run("delete", "2")
        #expect(refused.status == 2)
        #expect(refused.stderr == "griptrack: not deleting recording 2 without confirmation: pass --yes\n")
        let deleted = try await sandbox.run("delete", "2", "--yes")
        #expect(deleted.status == 0)
        #expect(deleted.stdout == "Deleted recording 2.\n")
        #expect(try await sandbox.run("replay", sandbox.capture("malformed"), "--save").status == 0)
        let missing = try await sandbox.run("show", "2")
        #expect(missing.status == 1)
        #expect(missing.stderr == "griptrack: No recording 2. List the stored recordings with `griptrack list`.\n")
    }

    @Test("bypass in the configuration admits every recording")
    func bypassAdmits() async throws {
        let sandbox = try CLISandbox(config: "[entitlements]\nbypass = true\n")
        defer { sandbox.cleanUp() }
        for name in ["repeaters", "max-pulls", "tare-offset", "false-start", "mtu247", "malformed"] {
            #expect(try await sandbox.run("replay", sandbox.capture(name), "--save").status == 0)
        }
        #expect(try await sandbox.run("pro", "status").stdout == "Pro: early access for everyone\n")
        #expect(try await count(sandbox) == 6)
    }

    private func count(_ sandbox: CLISandbox) async throws -> Int {
        struct Status: Decodable { var stored_recordings: Int }
        let result = try await sandbox.run("pro", "status", "--json")
        return try JSONDecoder().decode(Status.self, from: Data(result.stdout.utf8)).stored_recordings
    }

    /// Samples of the recordings `list` shows (all of them while at most 5 are stored, or with Pro).
    private func totalSamples(_ sandbox: CLISandbox) async throws -> Int {
        struct List: Decodable {
            struct Item: Decodable { var samples: Int }
            var recordings: [Item]
        }
        let result = try await sandbox.run("list", "--json")
        return try JSONDecoder().decode(List.self, from: Data(result.stdout.utf8)).recordings.map(\.samples).reduce(0, +)
    }
}
