import Foundation
import Glibc
import GRDB
import GripTestSupport
import Testing

/// `griptrack import` against inputs written to break it (`Tests/GripImportTests/Fixtures/hostile/`), and the readers
/// of a store holding values no import accepts: refused with file and line (exit 5) or drawn, never a trap or a hang.
@Suite("griptrack import: hostile input")
struct ImportHostileInputTests {
    static func hostile(_ name: String) -> String { ImportCommandTests.fixture("hostile/\(name)") }

    @Test("times near the Int64 limit and impossible forces are refused with file:line and exit 5, by --dry-run too")
    func hostileCSVs() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        for dryRun in [["--dry-run"], []] {
            let overflow = try await sandbox.run(["import"] + dryRun + [Self.hostile("time-span-overflow.csv")])
            #expect(overflow.status == 5, "\(overflow)")
            #expect(overflow.stderr == "griptrack: \(Self.hostile("time-span-overflow.csv")):6: time 9000000000000 s is too far "
                + "from the first sample's to be a recording: the file is damaged\n")
            let bundle = Self.hostile("repeaters-time-overflow")
            let repeaters = try await sandbox.run(["import"] + dryRun + [bundle])
            #expect(repeaters.status == 5, "\(repeaters)")
            #expect(repeaters.stderr.hasPrefix("griptrack: \(bundle)/data_set_2.csv:2: time 9000000000000 s is out of range"), "\(repeaters)")
            let weight = try await sandbox.run(["import"] + dryRun + [Self.hostile("weight-3.4e38-accepted.csv")])
            #expect(weight.status == 5, "\(weight)")
            #expect(weight.stderr.hasPrefix("griptrack: \(Self.hostile("weight-3.4e38-accepted.csv")):6: weight 3e38 kg is outside "
                + "what the Tindeq Progressor can measure (-10 to 200 kg)"), "\(weight)")
        }
        #expect(try await ImportCommandTests.count(sandbox) == 0)
    }

    @Test("a FIFO, or a bundle folder whose data set is a FIFO, is refused at once (no open() that waits for a writer)")
    func fifosRefused() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        let fifo = sandbox.directory.appendingPathComponent("export.csv").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let direct = try await sandbox.run("import", "--dry-run", fifo)
        #expect(direct.status == 1, "\(direct)")
        #expect(direct.stderr.contains("\(fifo): not a regular file"), "\(direct)")
        // A copy of the repeaters bundle whose first data set is a FIFO.
        let folder = sandbox.directory.appendingPathComponent("bundle")
        try FileManager.default.copyItem(
            at: URL(fileURLWithPath: ImportCommandTests.fixture("repeaters")), to: folder)
        let dataSet = folder.appendingPathComponent("data_set_1.csv").path
        try FileManager.default.removeItem(atPath: dataSet)
        #expect(mkfifo(dataSet, 0o600) == 0)
        let bundle = try await sandbox.run("import", folder.path)
        #expect(bundle.status != 0, "\(bundle)")
        #expect(bundle.stderr.contains("not a regular file"), "\(bundle)")
        #expect(try await ImportCommandTests.count(sandbox) == 0)
    }

    @Test("a damaged zip is refused at once; a zip with two files for one set is refused, naming both")
    func hostileZips() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        let hang = Self.hostile("zip-255B-hang.zip")
        let damaged = try await sandbox.run("import", "--dry-run", hang)
        #expect(damaged.status == 5, "\(damaged)")
        #expect(damaged.stderr == "griptrack: \(hang)/info.csv: cannot be extracted: the zip is damaged (it inflates to more than the 184 bytes its directory says)\n")
        let duplicates = Self.hostile("zip-duplicate-set-numbers.zip")
        let twice = try await sandbox.run("import", duplicates)
        #expect(twice.status == 5, "\(twice)")
        #expect(twice.stderr == "griptrack: \(duplicates): a/data_set_1.csv and data_set_01.csv are both set 1: keep one of them "
            + "(rename or remove the other) and import again\n")
        #expect(try await ImportCommandTests.count(sandbox) == 0)
    }

    @Test("a file storing would refuse is refused by --dry-run too, named, and the good file before it is not stored")
    func allOrNothing() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        let late = Self.hostile("end-after-2100-no-filename.csv")
        for dryRun in [["--dry-run"], []] {
            let result = try await sandbox.run(["import"] + dryRun + [ImportCommandTests.fixture("peak-force.csv"), late])
            #expect(result.status == 5, "\(result)")
            #expect(result.stdout == "")
            #expect(result.stderr == "griptrack: \(late):6: the recording would end after 2100 (this last sample is 4000000000 s "
                + "after the first, which is dated 2026-03-14 09:31:55): the times are wrong; correct them and import again\n")
        }
        #expect(try await ImportCommandTests.count(sandbox) == 0)
    }

    @Test("files the free plan cannot all take are all refused, none stored")
    func freePlanAllOrNothing() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        let names = ["peak-force.csv", "endurance.csv", "rfd.csv", "critical-force.csv"].map(ImportCommandTests.fixture)
        #expect(try await sandbox.run(["import"] + names).status == 0)
        // Two new exports (a peak test of another day is not the one imported already) for the one free slot.
        let another = sandbox.directory.appendingPathComponent("another-peak.csv").path
        try String(contentsOfFile: ImportCommandTests.fixture("peak-force.csv"), encoding: .utf8)
            .replacingOccurrences(of: "2026-14-03 09:31:55", with: "2026-15-03 09:31:55")
            .write(toFile: another, atomically: true, encoding: .utf8)
        let two = try await sandbox.run("import", ImportCommandTests.fixture("repeaters.zip"), another)
        #expect(two.status == 3, "\(two)")
        #expect(two.stdout == "")
        #expect(two.stderr.hasPrefix("griptrack: none of the 2 new files was imported (all are stored or none): Free plan keeps 5 recordings"), "\(two)")
        #expect(try await ImportCommandTests.count(sandbox) == 4)
    }

    @Test("show and show --svg draw a stored recording with extreme times and huge or NaN forces, never trapping")
    func readersClampStoredValues() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        #expect(try await sandbox.run("import", ImportCommandTests.fixture("peak-force.csv")).status == 0)
        #expect(try await sandbox.run("pro", "grant", "--note", "test").status == 0)
        // Written past the import, as a damaged or hand-edited store would hold them: the first chunk moved to
        // −9·10¹⁸ µs, a last chunk at +9·10¹⁸ µs with 3.4·10³⁸ kg and NaN, an effort spanning both.
        func float(_ value: Float) -> [UInt8] { withUnsafeBytes(of: value.bitPattern.littleEndian, Array.init) }
        let blob = Data(float(3.4e38) + [0] + float(.nan) + [1] + float(-3.4e38) + [1])
        let queue = try DatabaseQueue(path: sandbox.database)
        try await queue.write { db in
            try db.execute(sql: "UPDATE sampleChunk SET firstMicros = -9000000000000000000 WHERE recordingId = 1 AND sequence = 0")
            try db.execute(
                sql: """
                    INSERT INTO sampleChunk (recordingId, sequence, encoding, firstMicros, sampleCount, samples)
                    SELECT 1, MAX(sequence) + 1, 1, 9000000000000000000, 3, ? FROM sampleChunk WHERE recordingId = 1
                    """, arguments: [blob])
            try db.execute(sql: "UPDATE recording SET sampleCount = sampleCount + 3 WHERE id = 1")
            try db.execute(sql: "UPDATE effort SET startMicros = -9000000000000000000, endMicros = 9000000000000000000")
        }
        try queue.close()
        let show = try await sandbox.run("show", "1")
        #expect(show.status == 0, "\(show)")
        #expect(show.stdout.contains("┤"), "\(show)")
        let svg = sandbox.directory.appendingPathComponent("chart.svg").path
        let chart = try await sandbox.run("show", "1", "--no-plot", "--svg", svg)
        #expect(chart.status == 0, "\(chart)")
        #expect(try String(contentsOfFile: svg, encoding: .utf8).contains("<polyline"))
    }

    @Test("export → import keeps hand, label and the effort cut open at a link drop")
    func roundTripKeepsWhatTheUserSet() async throws {
        let first = try CLISandbox()
        defer { first.cleanUp() }
        #expect(try await first.run("replay", first.capture("reconnect"), "--save").status == 0)
        #expect(try await first.run("pro", "grant", "--note", "test").status == 0)
        let queue = try DatabaseQueue(path: first.database)
        try await queue.write { db in try db.execute(sql: "UPDATE recording SET hand = 'left', label = 'half crimp, 20 mm' WHERE id = 1") }
        try queue.close()
        let csv = first.directory.appendingPathComponent("one.csv").path
        #expect(try await first.run("export", "1", "--format", "csv", "-o", csv).status == 0)
        let original = try await first.run("export", "1", "--format", "json")

        let second = try CLISandbox()
        defer { second.cleanUp() }
        let imported = try await second.run("import", csv)
        #expect(imported.status == 0, "\(imported)")
        #expect(try await second.run("pro", "grant", "--note", "test").status == 0)
        let again = try await second.run("export", "1", "--format", "json")
        func object(_ text: String) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        }
        func json(_ value: Any?) throws -> String {
            String(decoding: try JSONSerialization.data(withJSONObject: value ?? NSNull(), options: [.sortedKeys, .fragmentsAllowed]), as: UTF8.self)
        }
        let before = try object(original.stdout)
        let after = try object(again.stdout)
        #expect((before["link_drops_micros"] as? [Any])?.isEmpty == false, "the capture has a link drop: \(before["link_drops_micros"] ?? "none")")
        for key in ["samples", "efforts", "hand", "label", "link_drops_micros", "max_kg", "avg_kg"] {
            #expect(try json(after[key]) == json(before[key]), "\(key) differs after export → import")
        }
    }
}
