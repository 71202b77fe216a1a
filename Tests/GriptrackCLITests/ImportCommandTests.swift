import Foundation
import GripTestSupport
import Testing

extension CLISandbox {
    /// Runs a store command given as an array, with `--db` and `--config` appended.
    @discardableResult
    func run(_ arguments: [String]) async throws -> CLIRunner.Result {
        try await runner.run(arguments + ["--db", database, "--config", config])
    }
}

/// `griptrack import` end to end: the app's exports in, recordings with both analyses out, through the free plan.
@Suite("griptrack import")
struct ImportCommandTests {
    static let fixtures = CaptureFixtures.repositoryRoot.appendingPathComponent("Tests/GripImportTests/Fixtures")
    static func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

    static func count(_ sandbox: CLISandbox) async throws -> Int {
        let list = try await sandbox.run("list", "--json")
        guard let object = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any],
            let recordings = object["recordings"] as? [Any]
        else { return -1 }
        return recordings.count
    }

    @Test("five exports of every kind become five recordings; a sixth is refused whole with exit 3 and nothing stored")
    func everyKindThenTheFreeLimit() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        let names = ["peak-force.csv", "endurance.csv", "rfd.csv", "critical-force.csv", "repeaters.zip"]
        let result = try await sandbox.run(["import"] + names.map(Self.fixture))
        #expect(result.status == 0, "\(result)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 5, "\(result)")
        #expect(lines[0].hasPrefix("Imported \(Self.fixture("peak-force.csv")) as #1: peak force test of 2026-03-14 09:31:55 (\"right half crimp\"), "))
        #expect(lines[0].contains(", 1 effort, max "), "\(lines[0])")
        #expect(lines[1].contains("as #2: endurance test of 2026-03-15 18:48:28"), "\(lines[1])")
        #expect(lines[2].contains("as #3: RFD test of 2026-03-16 19:31:30"), "\(lines[2])")
        #expect(lines[3].contains("as #4: critical force test of 2026-03-17 10:12:00 (\"cf 20mm\"), ") && lines[3].contains(", 6 efforts,"))
        #expect(lines[4].contains("as #5: repeaters of 2026-03-18 19:51:33 (\"7:3 repeaters 20mm\"), ") && lines[4].contains(", 6 efforts,"))
        #expect(try await Self.count(sandbox) == 5)

        // The repeaters recording shows the app's per-rep figures beside griptrack's efforts.
        let show = try await sandbox.run("show", "5", "--no-plot")
        #expect(show.status == 0, "\(show)")
        #expect(show.stdout.contains("Tindeq app export: repeaters, 2026-03-18 19:51:33, tag \"7:3 repeaters 20mm\""), "\(show)")
        #expect(show.stdout.contains("  set  rep    app avg  griptrack mean  difference    app peak  griptrack peak  difference"))
        let repLines = show.stdout.split(separator: "\n").filter { $0.hasPrefix("    1    ") || $0.hasPrefix("    2    ") }
        #expect(repLines.count == 6, "\(show)")
        #expect(repLines.allSatisfy { $0.hasSuffix("+0.00 kg") }, "griptrack's peaks are the app's peaks:\n\(repLines.joined(separator: "\n"))")

        // A sixth export (a peak test of another day: not one imported already).
        let another = sandbox.directory.appendingPathComponent("another-peak.csv").path
        let text = try String(contentsOfFile: Self.fixture("peak-force.csv"), encoding: .utf8)
        try text.replacingOccurrences(of: "2026-14-03 09:31:55", with: "2026-15-03 09:31:55")
            .write(toFile: another, atomically: true, encoding: .utf8)
        let sixth = try await sandbox.run("import", another)
        #expect(sixth.status == 3, "\(sixth)")
        #expect(sixth.stdout == "")
        #expect(sixth.stderr == "griptrack: \(another) was not imported: Free plan keeps 5 recordings "
            + "(5 of 5 used). Delete one with `griptrack delete <id>` or upgrade to Pro.\n")
        #expect(try await Self.count(sandbox) == 5, "nothing of the refused import is stored")
    }

    @Test("an export imported before is recognised and skipped, as a zip or as its folder; the new ones are stored")
    func duplicatesAreRecognised() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        let first = try await sandbox.run(["import", Self.fixture("peak-force.csv"), Self.fixture("repeaters.zip")])
        #expect(first.status == 0, "\(first)")
        let again = try await sandbox.run(["import", Self.fixture("repeaters"), Self.fixture("rfd.csv"), Self.fixture("peak-force.csv"), Self.fixture("rfd.csv")])
        #expect(again.status == 0, "\(again)")
        let lines = again.stdout.split(separator: "\n").map(String.init)
        #expect(lines == [
            "Skipped \(Self.fixture("repeaters")): already imported as #2 (the same file); `griptrack delete 2` first to import it again.",
            lines.count > 1 ? lines[1] : "",
            "Skipped \(Self.fixture("peak-force.csv")): already imported as #1 (the same file); `griptrack delete 1` first to import it again.",
            "Skipped \(Self.fixture("rfd.csv")): the same export was given earlier in this command; it is imported once.",
        ], "\(again)")
        #expect(lines.count > 1 && lines[1].hasPrefix("Imported \(Self.fixture("rfd.csv")) as #3: RFD test"), "\(again)")
        #expect(try await Self.count(sandbox) == 3)

        let json = try await sandbox.run(["import", Self.fixture("rfd.csv"), "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let item = try #require((object["imports"] as? [[String: Any]])?.first)
        #expect(item["already_imported_as"] as? Int == 3)
        #expect(item["id"] == nil)

        // Once the earlier recording is deleted, the file imports again.
        #expect(try await sandbox.run("delete", "1", "--yes").status == 0)
        let back = try await sandbox.run(["import", Self.fixture("peak-force.csv")])
        #expect(back.stdout.hasPrefix("Imported \(Self.fixture("peak-force.csv")) as #4:"), "\(back)")
    }

    @Test("--dry-run prints what would be stored and stores nothing, not even a database")
    func dryRun() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        let result = try await sandbox.run("import", "--dry-run", Self.fixture("rfd.csv"), Self.fixture("repeaters"))
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasPrefix("Would import \(Self.fixture("rfd.csv")): RFD test of 2026-03-16 19:31:30 (\"rfd right\"), "))
        #expect(result.stdout.contains("(app: RFD 20–80 "), "\(result)")
        #expect(result.stdout.contains("Would import \(Self.fixture("repeaters")): repeaters of 2026-03-18 19:51:33"))
        #expect(result.stdout.hasSuffix("\nDry run: nothing was stored.\n"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.database))
    }

    @Test("a malformed file among good ones is refused with file:line, exit 5, and nothing is stored")
    func malformedRefusesTheBatch() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        let bad = sandbox.directory.appendingPathComponent("bad.csv")
        try Data("date,tag,comment,unit,type,max weight\r\n2026-14-03 09:31:55,t,,SI,single,1.0\r\n\r\ntime,weight\r\n0.05,1.0\r\n0.06,abc\r\n".utf8)
            .write(to: bad)
        let result = try await sandbox.run("import", Self.fixture("peak-force.csv"), bad.path)
        #expect(result.status == 5, "\(result)")
        #expect(result.stdout == "")
        #expect(result.stderr == "griptrack: \(bad.path):6: weight \"abc\" is not a finite number\n")
        #expect(try await Self.count(sandbox) == 0)

        let missing = try await sandbox.run("import", sandbox.directory.appendingPathComponent("nope.csv").path)
        #expect(missing.status == 1)
        #expect(missing.stderr.hasSuffix("nope.csv: no such file or directory\n"))
    }

    @Test("a repeaters zip and its folder import to the same samples and figures")
    func zipAndFolderAgree() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        func dryRun(_ name: String) async throws -> [String: Any] {
            let result = try await sandbox.run("import", "--dry-run", "--json", Self.fixture(name))
            #expect(result.status == 0, "\(result)")
            let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            var item = try #require((object?["imports"] as? [[String: Any]])?.first)
            item["file"] = nil
            var comparison = item["comparison"] as? [String: Any]
            comparison?["file_name"] = nil
            item["comparison"] = comparison
            return item
        }
        let zip = try await dryRun("repeaters.zip")
        let folder = try await dryRun("repeaters")
        #expect(zip["samples"] as? Int == 4930)
        #expect(NSDictionary(dictionary: zip).isEqual(to: folder), "zip \(zip)\nfolder \(folder)")
    }

    @Test("a damaged zip and a zip without info.csv are refused with exit 5")
    func badZips() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        let broken = sandbox.directory.appendingPathComponent("broken.zip")
        try Data([0x50, 0x4B, 0x03, 0x04] + Array(repeating: 0x41, count: 40)).write(to: broken)
        let damaged = try await sandbox.run("import", broken.path)
        #expect(damaged.status == 5, "\(damaged)")
        #expect(damaged.stderr.hasPrefix("griptrack: \(broken.path): not a readable zip archive"), "\(damaged)")

        let folder = sandbox.directory.appendingPathComponent("sets")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("time,weight\r\n0.1,1\r\n".utf8).write(to: folder.appendingPathComponent("data_set_1.csv"))
        let noInfo = try await sandbox.run("import", folder.path)
        #expect(noInfo.status == 5)
        #expect(noInfo.stderr == "griptrack: \(folder.path): not a repeaters bundle: no info.csv (found data_set_1.csv)\n")
        #expect(try await Self.count(sandbox) == 0)
    }

    @Test("--json lists each import with its id and the app's figures beside griptrack's; show --json keeps them")
    func json() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        let result = try await sandbox.run("import", "--json", Self.fixture("critical-force.csv"))
        #expect(result.status == 0, "\(result)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["dry_run"] as? Bool == false)
        let item = try #require((object["imports"] as? [[String: Any]])?.first)
        #expect(item["id"] as? Int == 1)
        #expect(item["test_type"] as? String == "critical-force")
        #expect(item["efforts"] as? Int == 6)
        let comparison = try #require(item["comparison"] as? [String: Any])
        let rows = try #require(comparison["figures"] as? [[String: Any]])
        #expect(rows.contains { $0["name"] as? String == "critical force" && $0["app"] as? Double == 20.3156381 },
                "the app's figure at the precision it wrote (critical-force.csv: 20.3156381)")
        #expect((comparison["reps"] as? [Any])?.count == 6)

        let show = try await sandbox.run("show", "1", "--json")
        let shown = try #require(try JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as? [String: Any])
        let imported = try #require(shown["imported"] as? [String: Any])
        #expect(imported["test_type"] as? String == "critical-force")
        #expect((imported["threshold_crossings"] as? [Any])?.count == 12)
        #expect((imported["fields"] as? [Any])?.count == 8)
    }

    @Test("export --format csv imports back to the same samples and as many efforts")
    func exportImportsBack() async throws {
        let first = try CLISandbox()
        defer { first.cleanUp() }
        #expect(try await first.run("replay", first.capture("repeaters"), "--save").status == 0)
        #expect(try await first.run("pro", "grant", "--note", "test").status == 0)
        let csv = first.directory.appendingPathComponent("one.csv").path
        #expect(try await first.run("export", "1", "--format", "csv", "-o", csv).status == 0)
        let original = try await first.run("export", "1", "--format", "json")

        let second = try CLISandbox()
        defer { second.cleanUp() }
        let imported = try await second.run("import", csv)
        #expect(imported.status == 0, "\(imported)")
        #expect(try await second.run("pro", "grant", "--note", "test").status == 0)
        let again = try await second.run("export", "1", "--format", "json")
        func part(_ text: String, _ key: String) throws -> String {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            let value = try #require(object[key])
            return String(
                decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]), as: UTF8.self)
        }
        #expect(try part(again.stdout, "samples") == part(original.stdout, "samples"), "samples differ after export → import")
        // The efforts are cut again from the stored samples alone (the replay also saw the capture before them), so
        // only their number is expected to match.
        func effortCount(_ text: String) throws -> Int? {
            let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
            return (object?["efforts"] as? [Any])?.count
        }
        #expect(try effortCount(again.stdout) == effortCount(original.stdout))
        #expect(try part(again.stdout, "device") == part(original.stdout, "device"))
    }
}
