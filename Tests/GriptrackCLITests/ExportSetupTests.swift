import Foundation
import GripTestSupport
import Testing

/// Issue 30: who pulled and how, and the protocol, travel through `griptrack export` and back through `import`.
/// The seeded exports serve the trends tests too.
@Suite("export and import keep who and how")
struct ExportSetupTests {
    /// A griptrack export of one maximal pull at 80 Hz: 1 s at rest, a 0.5 s rise to `peak`, 8 s falling linearly by
    /// 4 kg, a 0.5 s release, 2 s at rest. MVC is `peak` and RFD 20–80 % is the rise's 2 × `peak` kg/s by
    /// construction; the rise is gentle enough (under 1.2 kg a sample) that no sample is a spike.
    static func pull(date: String, peak: Double, fields: [String]) -> String {
        var rows: [String] = []
        for index in 0..<960 {
            let seconds = Double(index) * 0.0125
            let kg: Double = switch seconds {
            case ..<1: 0
            case ..<1.5: peak * (seconds - 1) / 0.5
            case ..<9.5: peak - 4 * (seconds - 1.5) / 8
            case ..<10: (peak - 4) * (10 - seconds) / 0.5
            default: 0
            }
            rows.append(String(format: "%.6f,%.3f", seconds, kg))
        }
        let header = ["date,\(date)", "type,recording", "unit,kg", "profile,Tindeq Progressor"] + fields
        return (header + ["", "time,weight"] + rows).joined(separator: "\r\n") + "\r\n"
    }

    static func write(_ sandbox: CLISandbox, _ name: String, _ text: String) throws -> String {
        let path = sandbox.directory.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// Ana's left-hand max test on three Mondays (40, 42, 44 kg), once with her right hand, and Ben's left hand once.
    static func seed(_ sandbox: CLISandbox) async throws {
        let ana = ["athlete,Ana", "hand,left", "grip,half crimp", "protocol,max"]
        let files = [
            try write(sandbox, "a1.csv", pull(
                date: "2026-11-02 10:00:00", peak: 40,
                fields: ana + ["edge (mm),20", "body weight (kg),61.5", "protocol max (kg),40"])),
            try write(sandbox, "a2.csv", pull(date: "2026-11-09 10:00:00", peak: 42, fields: ana)),
            try write(sandbox, "a3.csv", pull(date: "2026-11-16 10:00:00", peak: 44, fields: ana)),
            try write(sandbox, "a4.csv", pull(
                date: "2026-11-10 10:00:00", peak: 36,
                fields: ["athlete,ana", "hand,right", "grip,Half Crimp", "protocol,max 3x 10s rest 180s alternate"])),
            try write(sandbox, "b1.csv", pull(date: "2026-11-11 10:00:00", peak: 50, fields: ["athlete,Ben", "hand,left"])),
        ]
        let imported = try await sandbox.runner.run(["import"] + files + ["--db", sandbox.database, "--config", sandbox.config])
        #expect(imported.status == 0, "\(imported)")
    }

    @Test("export writes who and how and the protocol; import of that export keeps them")
    func exportAndImportKeepTheSetup() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        try await Self.seed(sandbox)
        #expect(try await sandbox.run("pro", "grant").status == 0)
        let csvPath = sandbox.directory.appendingPathComponent("out.csv").path
        #expect(try await sandbox.run("export", "1", "--format", "csv", "-o", csvPath).status == 0)
        let csv = try String(contentsOfFile: csvPath, encoding: .utf8)
        for line in ["athlete,Ana", "hand,left", "grip,half crimp", "edge (mm),20.0", "body weight (kg),61.5",
                     "protocol,max 3x 10s rest 180s alternate", "protocol max (kg),40.0"] {
            #expect(csv.contains("\r\n\(line)\r\n"), "\(line)")
        }
        let exported = try Self.json(try await sandbox.run("export", "1", "--format", "json").stdout)
        let recording = (exported["recordings"] as? [[String: Any]])?.first ?? exported
        #expect(recording["protocol"] as? String == "max 3x 10s rest 180s alternate", "\(exported.keys)")
        #expect(recording["edge_mm"] as? Double == 20 && recording["protocol_max_kg"] as? Double == 40)

        let other = try CLISandbox()
        defer { other.cleanUp() }
        #expect(try await other.run("import", csvPath).status == 0)
        let row = try #require((try Self.json(try await other.run("list", "--json").stdout)["recordings"] as? [[String: Any]])?.first)
        #expect(row["athlete"] as? String == "Ana" && row["hand"] as? String == "left")
        #expect(row["grip"] as? String == "half crimp" && row["edge_mm"] as? Double == 20)
        #expect(row["body_weight_kg"] as? Double == 61.5)
        #expect(row["protocol"] as? String == "max 3x 10s rest 180s alternate" && row["protocol_max_kg"] as? Double == 40)

        let bad = try Self.write(other, "bad.csv", Self.pull(
            date: "2026-11-02 10:00:00", peak: 40, fields: ["protocol,repeaters 6x 7-3"]))
        let refused = try await other.run("import", bad)
        #expect(refused.status == 5, "\(refused)")
        #expect(refused.stderr.contains("bad.csv: protocol \"repeaters 6x 7-3\": column 14: "), "\(refused)")
    }
}
